/**
 * Gateway accounts and routing of the environment. Credentials are
 * write-only: the page shows which fields are set, never their values, and
 * a change replaces them whole. Each account shows the inbound webhook URL
 * to give the gateway. Routing names the gateways per method, in fallback
 * order with optional weights; the page shows each gateway's health and
 * answers which gateway would take a request now (the dry run).
 */
import { ActionIcon, Badge, Button, Card, Group, PasswordInput, SimpleGrid, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { GATEWAY_NAMES, ROUTING_METHODS } from '../../../server/contract/enums';
import { ConfigureGatewayInput } from '../../../server/admin/inputs/gateways';
import { api } from '../api/client';
import { useCan } from '../api/session';
import { GatewayHealth } from '../parts/GatewayHealth';
import { RoutingDryRun } from '../parts/RoutingDryRun';
import { RoutingRuleEditor } from '../parts/RoutingRuleEditor';
import { useScope } from '../shell/scope';
import { useConfirmTarget } from '../shell/confirm-target';
import { askConfirmation } from '../ui/ConfirmButton';
import { gatewayConfigureConfirmation, gatewaySwitchConfirmation, methodsRoutedTo } from '../parts/gateway-effects';
import { useAction } from '../ui/action';
import { CopyValue } from '../ui/Copy';
import { formatDateTime } from '../ui/format';
import { FormModal } from '../ui/FormModal';
import { Failed, Loading } from '../ui/states';
import { zodValidate } from '../ui/zod-form';

type Gateway = (typeof GATEWAY_NAMES)[number];
interface ConfigureValues {
  baseUrl: string;
  credentials: { name: string; value: string }[];
  enabled: boolean;
}

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
  const target = useConfirmTarget();
  const confirmSave = (values: ConfigureValues) => askConfirmation(gatewayConfigureConfirmation(gateway ?? '', fields.length > 0, target), () => save.mutate(values));
  return (
    <FormModal opened={gateway !== null} onClose={onClose} title={`Configure ${gateway}`} size="lg" onSubmit={form.onSubmit(confirmSave)} submitLabel="Save" pending={save.isPending}>
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
  const target = useConfirmTarget();
  const setEnabled = useAction((input: { gateway: Gateway; enabled: boolean }) => api.gateways.setEnabled.mutate({ environmentId: scope.environmentId, ...input }), {
    success: (_, input) => `${input.gateway} ${input.enabled ? 'enabled' : 'disabled'}.`,
    invalidate: [['gateways']],
  });
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
      <Card withBorder component="section" aria-labelledby="routing-heading">
        <Title order={2} size="h4" mb="xs" id="routing-heading">
          Routing
        </Title>
        <Text size="sm" c="dimmed" mb="sm">
          Which gateways new payments of each method go to, in order: the first takes them, the next ones only while those before are unavailable. Weights split new payments among
          them.
        </Text>
        <SimpleGrid cols={{ base: 1, md: 3 }}>
          {ROUTING_METHODS.map((method) => (
            <RoutingRuleEditor
              key={method}
              method={method}
              environmentId={scope.environmentId}
              rule={routes.data.find((r) => r.method === method)?.gateways ?? []}
              accounts={configured}
              canEdit={canEdit}
            />
          ))}
        </SimpleGrid>
      </Card>
      <GatewayHealth environmentId={scope.environmentId} />
      <RoutingDryRun environmentId={scope.environmentId} />
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
                    onChange={(e) => {
                      const enabled = e.currentTarget.checked;
                      const enabledGateways = configured.filter((a) => a.enabled).map((a) => a.gateway);
                      askConfirmation(gatewaySwitchConfirmation(gateway, enabled, routes.data, enabledGateways, target), () => setEnabled.mutate({ gateway, enabled }));
                    }}
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
