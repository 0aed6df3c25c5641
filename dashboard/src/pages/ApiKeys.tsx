/**
 * API keys of the environment: create one (its secret shown once), revoke
 * it (at once, after a confirmation), see when it was last used, and set its
 * own requests-per-minute limits.
 */
import { Badge, Button, Group, NumberInput, Stack, Table, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { CreateApiKeyInput, RATE_LIMIT_BUCKET_NAMES, SetRateLimitsInput } from '../../../server/contract/operator/keys';
import { api, type Outputs } from '../api/client';
import { useCan } from '../api/session';
import { SecretOnce } from '../parts/SecretOnce';
import { useScope } from '../shell/scope';
import { useAction } from '../ui/action';
import { Bidi } from '../ui/Bidi';
import { ConfirmButton } from '../ui/ConfirmButton';
import { useConfirmTarget } from '../shell/confirm-target';
import { DataTable } from '../ui/DataTable';
import { formatDateTime } from '../ui/format';
import { FormModal } from '../ui/FormModal';
import { Loaded } from '../ui/Loaded';
import { PageHeader } from '../ui/PageHeader';
import { zodValidate } from '../ui/zod-form';

type ApiKey = Outputs['apiKeys']['list'][number];
type Bucket = (typeof RATE_LIMIT_BUCKET_NAMES)[number];
const KEY = ['apiKeys', 'list'];

const BUCKET_LABEL: Record<Bucket, string> = {
  payments_create: 'Create payments',
  payments_sync: 'Sync payments',
  payments_cancel: 'Cancel payments',
  default: 'Everything else',
};

function LimitsModal({ apiKey, onClose }: { apiKey: ApiKey | null; onClose: () => void }) {
  const current = (apiKey?.rateLimits ?? {}) as Partial<Record<Bucket, number>>;
  const toInput = (values: Record<Bucket, number | string>) => ({
    apiKeyId: apiKey?.id ?? '',
    limits: Object.fromEntries(RATE_LIMIT_BUCKET_NAMES.map((bucket) => [bucket, values[bucket] === '' ? null : Number(values[bucket])])),
  });
  const form = useForm<Record<Bucket, number | string>>({
    initialValues: Object.fromEntries(RATE_LIMIT_BUCKET_NAMES.map((bucket) => [bucket, current[bucket] ?? ''])) as Record<Bucket, number | string>,
    validate: (values) => {
      const errors = zodValidate(SetRateLimitsInput)(toInput(values));
      return Object.fromEntries(Object.entries(errors).map(([path, message]) => [path.replace(/^limits\./, ''), message]));
    },
  });
  const save = useAction((values: Record<Bucket, number | string>) => api.apiKeys.setRateLimits.mutate(SetRateLimitsInput.parse(toInput(values))), {
    success: 'Limits saved.',
    invalidate: [KEY],
    onSuccess: onClose,
  });
  return (
    <FormModal
      opened={apiKey !== null}
      onClose={onClose}
      title={`Limits of ${apiKey?.name ?? apiKey?.displayPrefix ?? ''}`}
      onSubmit={form.onSubmit((values) => save.mutate(values))}
      submitLabel="Save limits"
      pending={save.isPending}
    >
      <Text size="sm" c="dimmed">
        Requests per minute for this key. Empty uses the service default.
      </Text>
      {RATE_LIMIT_BUCKET_NAMES.map((bucket) => (
        <NumberInput key={bucket} label={BUCKET_LABEL[bucket]} min={1} max={1_000_000} allowDecimal={false} placeholder="default" {...form.getInputProps(bucket)} />
      ))}
    </FormModal>
  );
}

export default function ApiKeysPage() {
  const scope = useScope();
  const canEdit = useCan(scope.organizationId, 'develop');
  const keys = useQuery({ queryKey: [...KEY, scope.environmentId], queryFn: () => api.apiKeys.list.query({ environmentId: scope.environmentId }) });
  const [creating, setCreating] = useState(false);
  const target = useConfirmTarget();
  const [limits, setLimits] = useState<ApiKey | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const toCreate = (values: { name: string }) => ({ environmentId: scope.environmentId, ...(values.name.trim() ? { name: values.name.trim() } : {}) });
  const form = useForm({ initialValues: { name: '' }, validate: zodValidate(CreateApiKeyInput, toCreate) });
  const create = useAction((values: { name: string }) => api.apiKeys.create.mutate(toCreate(values)), {
    success: 'API key created.',
    invalidate: [KEY],
    onSuccess: (answer) => {
      setCreating(false);
      form.reset();
      setSecret(answer.secret);
    },
  });
  const revoke = useAction((key: ApiKey) => api.apiKeys.revoke.mutate({ apiKeyId: key.id }), { success: 'Key revoked: requests with it are refused from now on.', invalidate: [KEY] });

  return (
    <Stack>
      <PageHeader title="API keys">{canEdit && <Button onClick={() => setCreating(true)}>Create key</Button>}</PageHeader>
      <Loaded error={keys.error} data={keys.data} empty="No key yet. Create one to call the /v1 API from your server.">
        {(data) => (
          <DataTable label="API keys" minWidth={720} verticalSpacing="sm" columns={['Name', 'Key', 'Created', 'Last used', 'Limits (per minute)', canEdit && 'Actions']}>
            {data.map((key) => {
              const own = Object.entries(key.rateLimits ?? {});
              return (
                <Table.Tr key={key.id} c={key.revokedAt ? 'dimmed' : undefined}>
                  <Table.Td>
                    {key.name ? <Bidi>{key.name}</Bidi> : <Text c="dimmed" span>unnamed</Text>}{' '}
                    {key.revokedAt && (
                      <Badge color="red" variant="light" size="sm">
                        revoked {formatDateTime(key.revokedAt)}
                      </Badge>
                    )}
                  </Table.Td>
                  <Table.Td ff="monospace">{key.displayPrefix}…</Table.Td>
                  <Table.Td>{formatDateTime(key.createdAt)}</Table.Td>
                  <Table.Td>{key.lastUsedAt ? formatDateTime(key.lastUsedAt) : 'never'}</Table.Td>
                  <Table.Td>
                    {own.length === 0 ? (
                      <Text size="sm" c="dimmed">
                        defaults
                      </Text>
                    ) : (
                      own.map(([bucket, limit]) => (
                        <Text size="xs" key={bucket}>
                          {BUCKET_LABEL[bucket as Bucket] ?? bucket}: {String(limit)}
                        </Text>
                      ))
                    )}
                  </Table.Td>
                  {canEdit && (
                    <Table.Td>
                      {!key.revokedAt && (
                        <Group gap="xs" wrap="nowrap">
                          <Button size="xs" variant="default" onClick={() => setLimits(key)}>
                            Limits
                          </Button>
                          <ConfirmButton
                            size="xs"
                            color="red"
                            variant="light"
                            loading={revoke.isPending && revoke.variables?.id === key.id}
                            confirm={{
                              title: `Revoke ${key.name ?? key.displayPrefix}?`,
                              message: `Every request made with this key (${key.displayPrefix}…) is refused at once with 401: a server still using it stops creating, canceling and reading payments until it has a new key. This cannot be undone.`,
                              confirmLabel: 'Revoke',
                              cancelLabel: 'Keep it',
                              danger: true,
                              target,
                            }}
                            onConfirm={() => revoke.mutate(key)}
                          >
                            Revoke
                          </ConfirmButton>
                        </Group>
                      )}
                    </Table.Td>
                  )}
                </Table.Tr>
              );
            })}
          </DataTable>
        )}
      </Loaded>
      <FormModal opened={creating} onClose={() => setCreating(false)} title="Create an API key" onSubmit={form.onSubmit((values) => create.mutate(values))} submitLabel="Create key" pending={create.isPending}>
        <TextInput label="Name" description="What uses it, e.g. checkout-server." data-autofocus {...form.getInputProps('name')} />
      </FormModal>
      <LimitsModal key={limits?.id ?? 'none'} apiKey={limits} onClose={() => setLimits(null)} />
      <SecretOnce secret={secret} title="Your new API key" label="API key" onClose={() => setSecret(null)}>
        <Text size="sm">
          Send it as <code>Authorization: Bearer &lt;key&gt;</code> to the /v1 API.
        </Text>
      </SecretOnce>
    </Stack>
  );
}
