/**
 * Sandbox only: what a customer or the gateway would do (pay, decline, let
 * it expire; complete a checkout, renew, fail a charge…), played by the
 * embedded demo's gateway simulators. The server refuses them elsewhere.
 */
import { Button, Card, Group, Text, Title } from '@mantine/core';
import { useAction } from '../ui/action';

export interface SimulatorAction<Outcome extends string> {
  outcome: Outcome;
  label: string;
  color?: string;
}

export function Simulators<Outcome extends string>({
  actions,
  run,
  invalidate,
}: {
  actions: SimulatorAction<Outcome>[];
  run: (outcome: Outcome) => Promise<unknown>;
  invalidate: unknown[][];
}) {
  const action = useAction(run, { success: (_, outcome) => `Simulated: ${outcome}.`, invalidate });
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
