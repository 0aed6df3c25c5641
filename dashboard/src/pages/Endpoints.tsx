/**
 * Webhook endpoints of the environment: register one (its signing secret
 * shown once), change its URL and events, turn it off and on, turn its
 * automatic retries on and off (decision 23, after a confirmation naming the
 * effect), rotate its secret with an overlap the receiver chooses. Each shows
 * its health: attempts that succeeded over 24 h, its oldest waiting delivery;
 * send it a signed test event and see the outcome (parts/SendTestEvent.tsx).
 */
import { Anchor, Badge, Button, Group, Modal, MultiSelect, Select, Stack, Switch, Table, Text, TextInput } from '@mantine/core';
import { useForm, type FormErrors } from '@mantine/form';
import { modals } from '@mantine/modals';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { CreateEndpointInput, UpdateEndpointInput } from '../../../server/contract/operator/webhooks';
import { WEBHOOK_EVENT_TYPES } from '../../../server/contract/event-types';
import { api, type Outputs } from '../api/client';
import { useCan } from '../api/session';
import { SecretOnce } from '../parts/SecretOnce';
import { SendTestEvent } from '../parts/SendTestEvent';
import { useScope } from '../shell/scope';
import { useAction } from '../ui/action';
import { askConfirmation } from '../ui/ConfirmButton';
import { useConfirmTarget } from '../shell/confirm-target';
import { endpointSwitchConfirmation } from '../parts/gateway-effects';
import { Bidi } from '../ui/Bidi';
import { DataTable } from '../ui/DataTable';
import { formatDateTime } from '../ui/format';
import { Loaded } from '../ui/Loaded';
import { PageHeader } from '../ui/PageHeader';
import { SubmitForm } from '../ui/SubmitForm';
import { zodValidate } from '../ui/zod-form';

type Endpoint = Outputs['webhooks']['listEndpoints'][number];
interface EndpointValues {
  url: string;
  enabledEvents: string[];
  description: string;
  /** Chosen when adding an endpoint; later by the switch in its row (with a confirmation). */
  retries?: boolean;
}

const KEY = ['webhooks', 'listEndpoints'];

/** `45 s`, `12 min`, `3 h 5 min`, `2 d 4 h`. */
function waitedFor(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
  return `${Math.floor(seconds / 86_400)} d ${Math.floor((seconds % 86_400) / 3600)} h`;
}

/** Attempts that succeeded over the last 24 h, and how long the oldest pending delivery has waited. */
function Health({ health }: { health: Endpoint['health'] }) {
  const rate = health.successRate24h;
  return (
    <>
      <Text size="sm" c={rate === null ? 'dimmed' : rate < 0.9 ? 'red.8' : undefined}>
        {rate === null ? 'no attempt' : `${Math.floor(rate * 100)}% succeeded`}
      </Text>
      <Text size="xs" c="dimmed">
        {rate === null ? 'in 24 h' : `of ${health.attempts24h} attempts in 24 h`}
      </Text>
      <Text size="xs" c={health.oldestPendingAgeSeconds === null ? 'dimmed' : 'orange.8'}>
        {health.oldestPendingAgeSeconds === null ? 'nothing waiting' : `oldest pending: ${waitedFor(health.oldestPendingAgeSeconds)}`}
      </Text>
    </>
  );
}

/** What automatic retries do for deliveries to `to` (decision 23). */
const retriesEffect = (to: string) =>
  `Deliveries to ${to} that fail by timeout, network error or a 5xx answer will be sent again, with the same body, timestamp and signature, about 1 min, 5 min, 30 min, 2 h, 8 h and 24 h later, and marked FAILED only after the last attempt. A 4xx is never retried. Your receiver must ignore an event id it has already processed.`;

/** What turning retries on or off changes, said before it is done. */
function confirmRetries(endpoint: Endpoint, on: boolean, apply: () => void) {
  modals.openConfirmModal({
    title: on ? 'Turn automatic retries on?' : 'Turn automatic retries off?',
    children: (
      <Text size="sm">
        {on
          ? retriesEffect(endpoint.url)
          : `A delivery to ${endpoint.url} that fails will be FAILED after its one attempt, with no automatic retry; a delivery already waiting makes its scheduled attempt, as its last. You can still resend any delivery by hand.`}
      </Text>
    ),
    labels: { confirm: on ? 'Turn retries on' : 'Turn retries off', cancel: 'Cancel' },
    onConfirm: apply,
  });
}

function EndpointForm({ initial, submitLabel, pending, validate, onSubmit }: { initial: EndpointValues; submitLabel: string; pending: boolean; validate: (values: EndpointValues) => FormErrors; onSubmit: (values: EndpointValues) => void }) {
  const form = useForm<EndpointValues>({ initialValues: initial, validate });
  return (
    <SubmitForm onSubmit={form.onSubmit(onSubmit)} submitLabel={submitLabel} pending={pending}>
      <TextInput label="URL" placeholder="https://example.com/webhooks/payments" required data-autofocus {...form.getInputProps('url')} />
      <MultiSelect
        label="Events"
        description="Leave empty to receive every event type."
        data={[...WEBHOOK_EVENT_TYPES]}
        searchable
        clearable
        {...form.getInputProps('enabledEvents')}
      />
      <TextInput label="Description" placeholder="Optional" {...form.getInputProps('description')} />
      {initial.retries !== undefined && (
        <Switch
          label="Retry failed deliveries automatically"
          description={`${retriesEffect('this endpoint')} Off: a failed delivery is FAILED after one attempt, and you resend it by hand.`}
          {...form.getInputProps('retries', { type: 'checkbox' })}
        />
      )}
    </SubmitForm>
  );
}

function RotateModal({ endpoint, onClose, onRotated }: { endpoint: Endpoint | null; onClose: () => void; onRotated: (secret: string) => void }) {
  const [overlap, setOverlap] = useState('86400');
  const rotate = useAction(
    (input: { endpointId: string; keepPreviousFor: number | 'now' }) => api.webhooks.rotateSecret.mutate(input),
    { success: 'Secret rotated.', invalidate: [KEY], onSuccess: (answer) => onRotated(answer.secret) },
  );
  return (
    <Modal opened={endpoint !== null} onClose={onClose} title="Rotate the signing secret">
      <Stack>
        <Text size="sm">A new secret signs deliveries. During the overlap the old secret keeps signing, so your receiver can switch without rejecting anything.</Text>
        <Select
          label="Keep the old secret signing for"
          value={overlap}
          onChange={(value) => setOverlap(value ?? '86400')}
          allowDeselect={false}
          data={[
            { value: 'now', label: 'No overlap: replace it now' },
            { value: '3600', label: '1 hour' },
            { value: '86400', label: '24 hours' },
            { value: '604800', label: '7 days' },
          ]}
        />
        <Button
          color="orange"
          loading={rotate.isPending}
          onClick={() => endpoint && rotate.mutate({ endpointId: endpoint.id, keepPreviousFor: overlap === 'now' ? 'now' : Number(overlap) })}
        >
          Rotate
        </Button>
      </Stack>
    </Modal>
  );
}

export default function EndpointsPage() {
  const scope = useScope();
  const canEdit = useCan(scope.organizationId, 'develop');
  const endpoints = useQuery({ queryKey: [...KEY, scope.environmentId], queryFn: () => api.webhooks.listEndpoints.query({ environmentId: scope.environmentId }) });
  const [creating, setCreating] = useState(false);
  const target = useConfirmTarget();
  const [editing, setEditing] = useState<Endpoint | null>(null);
  const [rotating, setRotating] = useState<Endpoint | null>(null);
  const [secret, setSecret] = useState<{ value: string; url: string; endpointId?: string } | null>(null);

  const create = useAction((values: EndpointValues) => api.webhooks.createEndpoint.mutate(toCreate(scope.environmentId, values)), {
    success: 'Endpoint registered.',
    invalidate: [KEY],
    onSuccess: (answer) => {
      setCreating(false);
      setSecret({ value: answer.secret, url: answer.url, endpointId: answer.id });
    },
  });
  const update = useAction((input: Parameters<typeof api.webhooks.updateEndpoint.mutate>[0]) => api.webhooks.updateEndpoint.mutate(input), {
    success: (answer) => (answer.enabled ? `Endpoint saved${answer.retries ? ' (automatic retries on)' : ''}.` : 'Endpoint saved (disabled).'),
    invalidate: [KEY],
    onSuccess: () => setEditing(null),
  });

  return (
    <Stack>
      <PageHeader title="Webhook endpoints">{canEdit && <Button onClick={() => setCreating(true)}>Add endpoint</Button>}</PageHeader>
      <Loaded error={endpoints.error} data={endpoints.data} empty="No endpoint yet: events of this environment are not sent anywhere.">
        {(data) => (
          <DataTable label="Webhook endpoints" minWidth={960} verticalSpacing="sm" columns={['URL', 'Events', 'Health', 'Secret', 'Enabled', 'Retries', canEdit && 'Actions']}>
            {data.map((endpoint) => (
              <Table.Tr key={endpoint.id}>
                <Table.Td>
                  <Text size="sm" ff="monospace" style={{ wordBreak: 'break-all' }}>
                    <Bidi>{endpoint.url}</Bidi>
                  </Text>
                  {endpoint.description && (
                    <Text size="xs" c="dimmed">
                      <Bidi>{endpoint.description}</Bidi>
                    </Text>
                  )}
                  <Anchor component={Link} to={`/e/${scope.environmentId}/deliveries?endpoint=${endpoint.id}`} size="xs">
                    Deliveries
                  </Anchor>
                </Table.Td>
                <Table.Td>
                  {endpoint.enabledEvents.length === 0 ? (
                    <Badge variant="light">all events</Badge>
                  ) : (
                    <Group gap={4}>
                      {endpoint.enabledEvents.map((type) => (
                        <Badge key={type} variant="outline" size="sm">
                          {type}
                        </Badge>
                      ))}
                    </Group>
                  )}
                </Table.Td>
                <Table.Td>
                  <Health health={endpoint.health} />
                </Table.Td>
                <Table.Td>
                  <Text size="xs" ff="monospace">
                    {endpoint.secretFingerprint}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {endpoint.secretRotatedAt ? `rotated ${formatDateTime(endpoint.secretRotatedAt)}` : `since ${formatDateTime(endpoint.createdAt)}`}
                  </Text>
                  {endpoint.previousSecret && (
                    <Text size="xs" c="orange.8">
                      old secret signs until {formatDateTime(endpoint.previousSecret.expiresAt)}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  <Switch
                    checked={endpoint.enabled}
                    disabled={!canEdit || (update.isPending && update.variables?.endpointId === endpoint.id)}
                    onChange={(e) => {
                      const enabled = e.currentTarget.checked;
                      askConfirmation(endpointSwitchConfirmation(endpoint.url, enabled, target), () => update.mutate({ endpointId: endpoint.id, enabled }));
                    }}
                    aria-label={`${endpoint.enabled ? 'Disable' : 'Enable'} ${endpoint.url}`}
                  />
                </Table.Td>
                <Table.Td>
                  <Switch
                    checked={endpoint.retries}
                    disabled={!canEdit || (update.isPending && update.variables?.endpointId === endpoint.id)}
                    onChange={(e) => {
                      const on = e.currentTarget.checked;
                      confirmRetries(endpoint, on, () => update.mutate({ endpointId: endpoint.id, retries: on }));
                    }}
                    aria-label={`Automatic retries for ${endpoint.url}`}
                  />
                </Table.Td>
                {canEdit && (
                  <Table.Td>
                    <Group gap="xs" wrap="nowrap" mb={4}>
                      <Button size="xs" variant="default" onClick={() => setEditing(endpoint)}>
                        Edit
                      </Button>
                      <Button size="xs" variant="light" color="orange" onClick={() => setRotating(endpoint)}>
                        Rotate secret
                      </Button>
                    </Group>
                    <SendTestEvent endpointId={endpoint.id} url={endpoint.url} environmentId={scope.environmentId} />
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </DataTable>
        )}
      </Loaded>

      <Modal opened={creating} onClose={() => setCreating(false)} title="Add a webhook endpoint" size="lg">
        <EndpointForm
          initial={{ url: '', enabledEvents: [], description: '', retries: false }}
          submitLabel="Add endpoint"
          pending={create.isPending}
          validate={zodValidate(CreateEndpointInput, (values: EndpointValues) => toCreate(scope.environmentId, values))}
          onSubmit={(values) => create.mutate(values)}
        />
      </Modal>
      <Modal opened={editing !== null} onClose={() => setEditing(null)} title="Edit the endpoint" size="lg">
        {editing && (
          <EndpointForm
            initial={{ url: editing.url, enabledEvents: editing.enabledEvents, description: editing.description ?? '' }}
            submitLabel="Save"
            pending={update.isPending}
            validate={zodValidate(UpdateEndpointInput, (values: EndpointValues) => toUpdate(editing.id, values))}
            onSubmit={(values) => update.mutate(toUpdate(editing.id, values))}
          />
        )}
      </Modal>
      <RotateModal
        endpoint={rotating}
        onClose={() => setRotating(null)}
        onRotated={(value) => {
          setSecret({ value, url: rotating?.url ?? '' });
          setRotating(null);
        }}
      />
      <SecretOnce secret={secret?.value ?? null} title="Signing secret" label="signing secret" onClose={() => setSecret(null)}>
        <Text size="sm">
          Deliveries to <Text span ff="monospace"><Bidi>{secret?.url}</Bidi></Text> are signed with this secret. Verify the signature header with it.
        </Text>
        {/* Once the receiver has the secret, one click shows whether it answers and accepts the signature. */}
        {secret?.endpointId && <SendTestEvent endpointId={secret.endpointId} url={secret.url} environmentId={scope.environmentId} />}
      </SecretOnce>
    </Stack>
  );
}

type EventType = (typeof WEBHOOK_EVENT_TYPES)[number];

function toCreate(environmentId: string, values: EndpointValues) {
  return {
    environmentId,
    url: values.url.trim(),
    enabledEvents: values.enabledEvents as EventType[],
    ...(values.description.trim() ? { description: values.description.trim() } : {}),
    ...(values.retries ? { retries: true } : {}),
  };
}

function toUpdate(endpointId: string, values: EndpointValues) {
  return { endpointId, url: values.url.trim(), enabledEvents: values.enabledEvents as EventType[], description: values.description.trim() || null };
}
