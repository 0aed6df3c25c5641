/**
 * "Which gateway would take this request now, and why": the routing dry run.
 * Nothing is created; the service answers with the rule, every candidate
 * with its state (available, circuit open or half-open, disabled, not
 * configured, method not supported) and the gateway it would choose. With an
 * externalId, a split rule answers where that order would land (the same
 * place every time).
 */
import { Alert, Badge, Button, Card, Group, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { ROUTING_METHODS, type RoutingMethod } from '../../../server/contract/enums';
import { api, type Outputs } from '../api/client';
import { messageOf } from '../api/errors';
import { DataTable } from '../ui/DataTable';
import { METHOD_LABEL, ruleSummary } from './routing-rule';

type Explanation = Outputs['routing']['explain'];

const CANDIDATE: Record<string, { label: string; color: string }> = {
  available: { label: 'available', color: 'green' },
  open: { label: 'circuit open', color: 'red' },
  half_open: { label: 'half-open (probe)', color: 'yellow' },
  disabled: { label: 'disabled', color: 'gray' },
  not_configured: { label: 'not configured', color: 'gray' },
  method_not_supported: { label: 'method not supported', color: 'gray' },
};

export function RoutingDryRun({ environmentId }: { environmentId: string }) {
  const [method, setMethod] = useState<RoutingMethod>('PIX');
  const [externalId, setExternalId] = useState('');
  const explain = useMutation({
    mutationFn: (input: { method: RoutingMethod; externalId: string }) =>
      api.routing.explain.query({ environmentId, method: input.method, ...(input.externalId ? { externalId: input.externalId } : {}) }),
  });
  const asked = explain.variables;
  const run = () => explain.mutate({ method, externalId: externalId.trim() });

  return (
    <Card withBorder component="section" aria-labelledby="routing-dry-run">
      <Title order={2} size="h4" id="routing-dry-run">
        Dry run
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        Which gateway would take a new request now, and why. Nothing is created.
      </Text>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          run();
        }}
      >
        <Group align="flex-end" gap="xs">
          <Select
            label="Method"
            w={170}
            allowDeselect={false}
            data={ROUTING_METHODS.map((m) => ({ value: m, label: METHOD_LABEL[m] }))}
            value={method}
            onChange={(value) => value && setMethod(value as RoutingMethod)}
          />
          <TextInput
            label="External id"
            description="Optional: where this order would land under a split"
            placeholder="order-1234"
            style={{ flex: 1, minWidth: 180 }}
            value={externalId}
            onChange={(e) => setExternalId(e.currentTarget.value)}
          />
          <Button type="submit" loading={explain.isPending}>
            Explain
          </Button>
        </Group>
      </form>
      {explain.error && (
        <Alert color="red" mt="sm" role="alert" title="Could not explain">
          {messageOf(explain.error)}
        </Alert>
      )}
      {/* Always present, so a screen reader announces each new answer. */}
      <div aria-live="polite">{explain.data && asked && <DryRunAnswer answer={explain.data} method={asked.method} externalId={asked.externalId} />}</div>
    </Card>
  );
}

function DryRunAnswer({ answer, method, externalId }: { answer: Explanation; method: RoutingMethod; externalId: string }) {
  const request = `A new ${METHOD_LABEL[method]} request${externalId ? ` with externalId ${externalId}` : ''}`;
  return (
    <Stack gap="sm" mt="md">
      <Alert color={answer.chosen ? 'teal' : 'red'} variant="light" title={answer.chosen ? `${request} would go to ${answer.chosen}` : `${request} would be refused`}>
        <Text size="sm">{answer.reason}</Text>
      </Alert>
      <Text size="sm">
        Rule: {answer.rule.length ? <Text span ff="monospace">{ruleSummary(answer.rule.map((g) => ({ gateway: g.gateway, weight: g.weight ?? null })))}</Text> : 'none'}
      </Text>
      {answer.candidates.length > 0 && (
        <DataTable bare label="Candidates" minWidth={520} columns={['Gateway', 'Weight', 'State', 'Why']}>
          {answer.candidates.map((candidate) => {
            const state = CANDIDATE[candidate.state] ?? { label: candidate.state, color: 'gray' };
            return (
              <Table.Tr key={candidate.gateway} fw={candidate.gateway === answer.chosen ? 600 : undefined}>
                <Table.Td>
                  <Group gap={6} wrap="nowrap">
                    <Text span size="sm" ff="monospace">
                      {candidate.gateway}
                    </Text>
                    {candidate.gateway === answer.chosen && (
                      <Badge size="xs" color="teal">
                        chosen
                      </Badge>
                    )}
                  </Group>
                </Table.Td>
                <Table.Td>{candidate.weight ?? '—'}</Table.Td>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>
                  <Badge color={state.color} variant="light" style={{ overflow: 'visible' }}>
                    {state.label}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{candidate.reason}</Text>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </DataTable>
      )}
    </Stack>
  );
}
