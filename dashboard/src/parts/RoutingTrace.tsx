/**
 * Why a payment or subscription went to its gateway: the rule in force when
 * it was created, each gateway tried in turn with what happened (taken,
 * failed, timed out, passed over because its circuit was open…), when and
 * how long it took, and the gateway that took it. Operators and the
 * merchant's members read it; the public API does not show it.
 */
import { Badge, Card, Table, Text, Title } from '@mantine/core';
import { DataTable } from '../ui/DataTable';
import { formatDateTime } from '../ui/format';
import type { Outputs } from '../api/client';
import { ruleSummary } from './routing-rule';

/** As the payment and subscription detail procedures answer it (the same as payments.trace / subscriptions.trace). */
type Trace = Outputs['payments']['get']['routingTrace'];
/** Read from the operator API's answer, so the dashboard names nothing of the server but its router and the contract. */
type Attempt = NonNullable<Trace['attempts']>[number];
type AttemptOutcome = Attempt['outcome'];
type OrphanFate = NonNullable<Attempt['orphan']>;

/** Whatever an abandoned attempt may have left at its gateway, and what became of it. */
const ORPHAN: Record<OrphanFate, string> = {
  cancel_pending: 'what it may have created is being canceled',
  canceled: 'what it created was canceled',
  left_to_expire: 'whatever it created there is left to expire (no Pix code of it was shown to the customer)',
  nothing_found: 'nothing was created there',
  cancel_failed: 'canceling what it created failed',
};

const OUTCOME_COLOR: Record<AttemptOutcome, string> = { succeeded: 'green', unavailable: 'red', timeout: 'orange', skipped: 'gray', refused: 'grape' };

const time = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit', fractionalSecondDigits: 3 });

export function RoutingTrace({ trace, what }: { trace: Trace; what: 'payment' | 'subscription' }) {
  return (
    <Card withBorder component="section" aria-labelledby="routing-trace" p={0}>
      <Title order={2} size="h4" id="routing-trace" p="md" pb={4}>
        Routing
      </Title>
      {/* A resource created before traces were kept has its gateway only. */}
      {trace.method === null ? (
        <Text size="sm" c="dimmed" px="md" pb="md">
          No routing trace: this {what} was created before traces were kept{trace.gateway ? ` (it went to ${trace.gateway})` : ''}.
        </Text>
      ) : (
        <>
          <Text size="sm" px="md">
            Rule when it was created:{' '}
            {trace.rule?.length ? (
              <Text span ff="monospace">
                {ruleSummary(trace.rule)}
              </Text>
            ) : (
              'none'
            )}
          </Text>
          <Text size="sm" px="md">
            {trace.chosen ? (
              <>
                Taken by{' '}
                <Text span fw={600} ff="monospace">
                  {trace.chosen}
                </Text>
                {trace.attempts.length > 1 ? ` after ${trace.attempts.length - 1} other ${trace.attempts.length === 2 ? 'attempt' : 'attempts'}.` : '.'}
              </>
            ) : (
              'No gateway took it.'
            )}
          </Text>
          {trace.reason && (
            <Text size="sm" c="dimmed" px="md" pb="xs">
              {trace.reason}
            </Text>
          )}
          <DataTable bare keyboardScroll label="Routing attempts" minWidth={640} columns={['#', 'Gateway', 'Outcome', 'Started', 'Duration', 'Detail']}>
            {trace.attempts.map((attempt, index) => (
              <Table.Tr key={`${index}-${attempt.gateway}`}>
                <Table.Td>{index + 1}</Table.Td>
                <Table.Td>
                  <Text span size="sm" ff="monospace">
                    {attempt.gateway}
                  </Text>
                </Table.Td>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>
                  <Badge color={OUTCOME_COLOR[attempt.outcome] ?? 'gray'} variant="light" style={{ overflow: 'visible' }}>
                    {attempt.outcome.replaceAll('_', ' ')}
                  </Badge>
                </Table.Td>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>
                  <span title={formatDateTime(attempt.startedAt)}>{time.format(new Date(attempt.startedAt))}</span>
                </Table.Td>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>{Math.round(attempt.durationMs)} ms</Table.Td>
                <Table.Td>
                  <Text size="sm" style={{ wordBreak: 'break-word' }}>
                    {[
                      attempt.detail,
                      attempt.orphan && ORPHAN[attempt.orphan],
                      // Decision 28: money an abandoned attempt took, to be returned at that gateway; the payment is unchanged.
                      attempt.reportedPaidAt && `its gateway reported it paid on ${formatDateTime(attempt.reportedPaidAt)}: money to return there`,
                    ]
                      .filter(Boolean)
                      .join('; ') || '—'}
                  </Text>
                </Table.Td>
              </Table.Tr>
            ))}
          </DataTable>
        </>
      )}
    </Card>
  );
}
