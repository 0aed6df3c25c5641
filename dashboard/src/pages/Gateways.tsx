/**
 * Gateway accounts and routing of the environment. Credentials are
 * write-only: the page shows which fields are set, never their values, and
 * a change replaces them whole. Each account shows the inbound webhook URL
 * to give the gateway. Routing picks the gateway per method.
 */
import { ActionIcon, Badge, Button, Card, Group, PasswordInput, Select, SimpleGrid, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { GATEWAY_NAMES, ROUTING_METHODS } from '../../../server/contract/enums';
import { ConfigureGatewayInput } from '../../../server/admin/inputs/gateways';
import { api } from '../api/client';
import { useCan } from '../api/session';
import { useScope } from '../shell/scope';
import { useAction } from '../ui/action';
import { CopyValue } from '../ui/Copy';
import { formatDateTime } from '../ui/format';
import { FormModal } from '../ui/FormModal';
import { Failed, Loading } from '../ui/states';
import { zodValidate } from '../ui/zod-form';

type Gateway = (typeof GATEWAY_NAMES)[number];
type Method = (typeof ROUTING_METHODS)[number];
interface ConfigureValues {
  baseUrl: string;
  credentials: { name: string; value: string }[];
  enabled: boolean;
}

const METHOD_LABEL: Record<Method, string> = { PIX: 'Pix', CARD: 'Card', SUBSCRIPTION: 'Subscriptions' };

function ConfigureModal({ gateway, environmentId, baseUrl, fields, onClose }: { gateway: Gateway | null; environmentId: string; baseUrl: string; fields: string[]; onClose: () => void }) {
  const toInput = (values: ConfigureValues) => ({
    environmentId,
    gateway: gateway ?? 'gateway_a',
    baseUrl: values.baseUrl.trim(),
    credentials: Object.fromEntries(values.credentials.filter((c) => c.name.trim()).map((c) => [c.name.trim(), c.value])),
    enabled: values.enabled,
  });
  const form = useForm<ConfigureValues>({
    initialValues: { baseUrl, credentials: (fields.length ? fields : ['']).map((name) => ({ name, value: '' })), enabled: true },
    validate: zodValidate(ConfigureGatewayInput, toInput),
  });
  const save = useAction((values: ConfigureValues) => api.gateways.configure.mutate(toInput(values)), {
    success: `${gateway} configured.`,
    invalidate: [['gateways']],
    onSuccess: onClose,
  });
  return (
    <FormModal opened={gateway !== null} onClose={onClose} title={`Configure ${gateway}`} size="lg" onSubmit={form.onSubmit((values) => save.mutate(values))} submitLabel="Save" pending={save.isPending}>
      <TextInput label="Base URL" placeholder="https://api.gateway.example" required {...form.getInputProps('baseUrl')} />
      <Text size="sm" fw={500}>
        Credentials
      </Text>
      <Text size="xs" c="dimmed" mt={-12}>
        Write-only: sealed at rest and never shown again. Saving replaces every credential field.
      </Text>
      {form.errors.credentials && (
        <Text size="xs" c="red">
          {form.errors.credentials}
        </Text>
      )}
      {form.values.credentials.map((_, index) => (
        <Group key={index} align="end" wrap="nowrap">
          <TextInput label="Field" placeholder="apiKey" style={{ flex: 1 }} {...form.getInputProps(`credentials.${index}.name`)} />
          <PasswordInput label="Value" autoComplete="off" style={{ flex: 2 }} {...form.getInputProps(`credentials.${index}.value`)} />
          <ActionIcon variant="subtle" color="red" size="lg" aria-label="Remove this field" onClick={() => form.removeListItem('credentials', index)}>
            ×
          </ActionIcon>
        </Group>
      ))}
      <Button variant="subtle" onClick={() => form.insertListItem('credentials', { name: '', value: '' })} w="fit-content">
        Add a field
      </Button>
      <Switch label="Enabled" {...form.getInputProps('enabled', { type: 'checkbox' })} />
    </FormModal>
  );
}

export default function GatewaysPage() {
  const scope = useScope();
  const canEdit = useCan(scope.organizationId, 'develop');
  const accounts = useQuery({ queryKey: ['gateways', 'list', scope.environmentId], queryFn: () => api.gateways.list.query({ environmentId: scope.environmentId }) });
  const routes = useQuery({ queryKey: ['routing', 'list', scope.environmentId], queryFn: () => api.routing.list.query({ environmentId: scope.environmentId }) });
  const [configuring, setConfiguring] = useState<Gateway | null>(null);
  const setEnabled = useAction((input: { gateway: Gateway; enabled: boolean }) => api.gateways.setEnabled.mutate({ environmentId: scope.environmentId, ...input }), {
    success: (_, input) => `${input.gateway} ${input.enabled ? 'enabled' : 'disabled'}.`,
    invalidate: [['gateways']],
  });
  const route = useAction(
    (input: { method: Method; gateway: Gateway | null }): Promise<unknown> =>
      input.gateway
        ? api.routing.set.mutate({ environmentId: scope.environmentId, method: input.method, gateway: input.gateway })
        : api.routing.remove.mutate({ environmentId: scope.environmentId, method: input.method }),
    { success: (_, input) => (input.gateway ? `${METHOD_LABEL[input.method]} now goes to ${input.gateway}.` : `${METHOD_LABEL[input.method]} has no rule now.`), invalidate: [['routing']] },
  );
  if (accounts.error) return <Failed error={accounts.error} />;
  if (routes.error) return <Failed error={routes.error} />;
  if (!accounts.data || !routes.data) return <Loading />;
  const configured = accounts.data;
  const editing = configured.find((a) => a.gateway === configuring);

  return (
    <Stack>
      <Title order={1} size="h2">
        Gateways & routing
      </Title>
      <Card withBorder>
        <Title order={2} size="h4" mb="xs">
          Routing
        </Title>
        <Text size="sm" c="dimmed" mb="sm">
          Which gateway new payments of each method go to.
        </Text>
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          {ROUTING_METHODS.map((method) => {
            const rule = routes.data.find((r) => r.method === method);
            return (
              <Select
                key={method}
                label={METHOD_LABEL[method]}
                placeholder="No rule"
                clearable
                disabled={!canEdit || route.isPending}
                data={GATEWAY_NAMES.map((g) => ({ value: g, label: configured.some((a) => a.gateway === g) ? g : `${g} (not configured)` }))}
                value={rule?.gateway ?? null}
                onChange={(value) => route.mutate({ method, gateway: value as Gateway | null })}
              />
            );
          })}
        </SimpleGrid>
      </Card>
      <SimpleGrid cols={{ base: 1, lg: 3 }}>
        {GATEWAY_NAMES.map((gateway) => {
          const account = configured.find((a) => a.gateway === gateway);
          return (
            <Card withBorder key={gateway}>
              <Group justify="space-between" mb="xs">
                <Title order={2} size="h4">
                  {gateway}
                </Title>
                {account ? (
                  <Switch
                    checked={account.enabled}
                    disabled={!canEdit || setEnabled.isPending}
                    onChange={(e) => setEnabled.mutate({ gateway, enabled: e.currentTarget.checked })}
                    label={account.enabled ? 'Enabled' : 'Disabled'}
                    aria-label={`${gateway} enabled`}
                  />
                ) : (
                  <Badge color="gray" variant="light">
                    not configured
                  </Badge>
                )}
              </Group>
              {account && (
                <Stack gap="xs">
                  <Text size="sm">
                    Base URL: <Text span ff="monospace">{account.baseUrl}</Text>
                  </Text>
                  <Group gap={4}>
                    <Text size="sm">Credentials set:</Text>
                    {account.credentialFields.map((field) => (
                      <Badge key={field} variant="outline" size="sm">
                        {field}
                      </Badge>
                    ))}
                  </Group>
                  <Text size="sm">Inbound webhook URL (give it to {gateway}):</Text>
                  <CopyValue value={account.webhookUrl} label={`${gateway} inbound webhook URL`} />
                  <Text size="xs" c="dimmed">
                    Updated {formatDateTime(account.updatedAt)}
                  </Text>
                </Stack>
              )}
              {canEdit && (
                <Button mt="sm" variant={account ? 'default' : 'filled'} onClick={() => setConfiguring(gateway)}>
                  {account ? 'Replace configuration' : 'Configure'}
                </Button>
              )}
            </Card>
          );
        })}
      </SimpleGrid>
      {configuring && (
        <ConfigureModal
          key={configuring}
          gateway={configuring}
          environmentId={scope.environmentId}
          baseUrl={editing?.baseUrl ?? ''}
          fields={editing?.credentialFields ?? []}
          onClose={() => setConfiguring(null)}
        />
      )}
    </Stack>
  );
}
