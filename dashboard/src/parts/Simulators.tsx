/**
 * Sandbox only: what a customer or the gateway would do (pay, decline, let
 * it expire; complete a checkout, renew, fail a charge…), played by the
 * embedded demo's gateway simulators. The server refuses them elsewhere.
 */
import { Button, Card, Group, Text, Title } from '@mantine/core';
import { useScope } from '../shell/scope';
import { useAction } from '../ui/action';
import { useReadiness } from './sandbox-readiness';

export interface SimulatorAction<Outcome extends string> {
  outcome: Outcome;
  label: string;
  color?: string;
}

export function Simulators<Outcome extends string>({
  gateway,
  actions,
  run,
  invalidate,
}: {
  /** The record's gateway: where no simulator plays it here, the card says so instead of offering buttons that would fail. */
  gateway?: string;
  actions: SimulatorAction<Outcome>[];
  run: (outcome: Outcome) => Promise<unknown>;
  invalidate: unknown[][];
}) {
  const scope = useScope();
  const readiness = useReadiness(scope.environmentId);
  const action = useAction(run, { success: (_, outcome) => `Simulated: ${outcome}.`, invalidate });
  if (gateway && readiness.data && !readiness.data.simulators.includes(gateway as never)) {
    return (
      <Card withBorder>
        <Title order={2} size="h4">
          Simulate (sandbox)
        </Title>
        <Text size="sm" mt="xs">
          No simulator plays {gateway} in this environment: its account here is a real gateway&apos;s test account. Pay or decline through its checkout or its own test
          tools; its notification, or Sync, brings the outcome here.
        </Text>
      </Card>
    );
  }
  return (
    <Card withBorder style={{ borderColor: 'var(--mantine-color-orange-4)' }}>
      <Title order={2} size="h4">
        Simulate (sandbox)
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        Plays the customer or the gateway; the service then receives the gateway's notification as in production.
      </Text>
      {actions.length === 0 ? (
        <Text size="sm">Nothing left to simulate: it is in a final state.</Text>
      ) : (
        <Group gap="xs">
          {actions.map((a) => (
            <Button
              key={a.outcome}
              variant="light"
              color={a.color ?? 'orange'}
              loading={action.isPending && action.variables === a.outcome}
              disabled={action.isPending}
              onClick={() => action.mutate(a.outcome)}
            >
              {a.label}
            </Button>
          ))}
        </Group>
      )}
    </Card>
  );
}
