/**
 * Home's first-run checklist for the project: create an API key, add a
 * webhook endpoint, make a test payment, go live. Each step is ticked from
 * what exists (onboarding.checklist), links where to do it, and the list
 * goes away once every step is done; it can also be put away per project.
 */
import { Anchor, Button, Card, Group, List, Progress, Text, ThemeIcon, Title } from '@mantine/core';
import { useLocalStorage } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api } from '../api/client';

function Tick({ done }: { done: boolean }) {
  return (
    <ThemeIcon size={20} radius="xl" color={done ? 'teal.8' : 'gray.6'} variant={done ? 'filled' : 'outline'} aria-hidden="true">
      <svg width="12" height="12" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="3" strokeLinecap="round" strokeLinejoin="round">
        {done ? <path d="M5 12l5 5L20 7" /> : <circle cx="12" cy="12" r="2" />}
      </svg>
    </ThemeIcon>
  );
}

export function FirstRunChecklist({ environmentId, projectId }: { environmentId: string; projectId: string }) {
  const [dismissed, setDismissed] = useLocalStorage({ key: `first-run-dismissed:${projectId}`, defaultValue: false });
  const checklist = useQuery({
    queryKey: ['overview', 'checklist', environmentId],
    queryFn: () => api.onboarding.checklist.query({ environmentId }),
    // Each step is done elsewhere: coming back home reads them again.
    staleTime: 0,
  });
  const data = checklist.data;
  if (!data || dismissed) return null;
  const sandbox = data.sandboxEnvironmentId;
  const production = data.productionEnvironmentId;
  const missingLive = data.production
    ? [!data.production.apiKey && 'an API key', !data.production.routed && 'a gateway with its live credentials and a routing rule'].filter(Boolean).join(' and ')
    : 'a production environment';
  const steps = [
    { key: 'apiKey', done: data.steps.apiKey, label: 'Create an API key', hint: 'Your server sends it with every /v1 request.', to: sandbox && `/e/${sandbox}/keys` },
    { key: 'endpoint', done: data.steps.endpoint, label: 'Add a webhook endpoint', hint: 'Where payment.paid and the other events are delivered, signed.', to: sandbox && `/e/${sandbox}/webhooks` },
    { key: 'testPayment', done: data.steps.testPayment, label: 'Make a test payment', hint: 'In the sandbox: create one, pay it with the simulator, see its events.', to: sandbox && `/e/${sandbox}/payments` },
    { key: 'goLive', done: data.steps.goLive, label: 'Go live', hint: `Production needs ${missingLive || 'nothing more'}.`, to: production && `/e/${production}/gateways` },
  ] as const;
  const done = steps.filter((step) => step.done).length;
  if (done === steps.length) return null;
  return (
    <Card withBorder data-testid="first-run-checklist">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4">
          Get started
        </Title>
        <Button variant="subtle" size="xs" color="gray" onClick={() => setDismissed(true)}>
          Hide this list
        </Button>
      </Group>
      <Progress value={(done / steps.length) * 100} size="sm" mb="sm" aria-label={`${done} of ${steps.length} steps done`} />
      <List spacing="sm" listStyleType="none" aria-label="First steps">
        {steps.map((step) => (
          <List.Item key={step.key} icon={<Tick done={step.done} />} aria-label={`${step.label}: ${step.done ? 'done' : 'to do'}`}>
            <Text size="sm" fw={600} td={step.done ? 'line-through' : undefined}>
              {step.to ? (
                <Anchor component={Link} to={step.to} inherit>
                  {step.label}
                </Anchor>
              ) : (
                step.label
              )}
            </Text>
            {!step.done && (
              <Text size="xs" c="dimmed">
                {step.hint}
              </Text>
            )}
          </List.Item>
        ))}
      </List>
    </Card>
  );
}
