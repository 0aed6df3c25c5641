/**
 * Gateway accounts and routing of the environment. Credentials are
 * write-only: the page shows which fields are set, never their values; the
 * configure form (parts/GatewayConfigureForm.tsx) names each gateway's own
 * fields and offers its known base URLs. Each account shows the inbound webhook URL
 * to give the gateway. Routing names the gateways per method, in fallback
 * order with optional weights; the page shows each gateway's health and
 * answers which gateway would take a request now (the dry run).
 */
import { Badge, Button, Card, Group, SimpleGrid, Stack, Switch, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { GATEWAY_NAMES, ROUTING_METHODS } from '../../../server/contract/enums';
import { GATEWAY_FORMS } from '../../../server/contract/gateway-credentials';
import { api } from '../api/client';
import { useCan } from '../api/session';
import { GatewayHealth } from '../parts/GatewayHealth';
import { RoutingDryRun } from '../parts/RoutingDryRun';
import { RoutingRuleEditor } from '../parts/RoutingRuleEditor';
import { useScope } from '../shell/scope';
import { useConfirmTarget } from '../shell/confirm-target';
import { askConfirmation } from '../ui/ConfirmButton';
import { gatewaySwitchConfirmation, methodsRoutedTo } from '../parts/gateway-effects';
import { GatewayConfigureForm } from '../parts/GatewayConfigureForm';
import { useAction } from '../ui/action';
import { CopyValue } from '../ui/Copy';
import { formatDateTime } from '../ui/format';
import { Failed, Loading } from '../ui/states';

type Gateway = (typeof GATEWAY_NAMES)[number];

export default function GatewaysPage() {
  const scope = useScope();
  const canEdit = useCan(scope.organizationId, 'develop');
  const accounts = useQuery({ queryKey: ['gateways', 'list', scope.environmentId], queryFn: () => api.gateways.list.query({ environmentId: scope.environmentId }) });
  const routes = useQuery({ queryKey: ['routing', 'list', scope.environmentId], queryFn: () => api.routing.list.query({ environmentId: scope.environmentId }) });
  // Each gateway's fields and base URL choices: read only by those who may configure.
  const forms = useQuery({ queryKey: ['gateways', 'forms', scope.environmentId], queryFn: () => api.gateways.forms.query({ environmentId: scope.environmentId }), enabled: canEdit });
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
  const description = forms.data?.find((f) => f.gateway === configuring);

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
                      <Badge key={field} variant="outline" size="sm" tt="none">
                        {GATEWAY_FORMS[gateway].fields.find((f) => f.name === field)?.label ?? field}
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
                <Button mt="sm" variant={account ? 'default' : 'filled'} loading={configuring === gateway && !forms.data} onClick={() => setConfiguring(gateway)}>
                  {account ? 'Replace configuration' : 'Configure'}
                </Button>
              )}
            </Card>
          );
        })}
      </SimpleGrid>
      {configuring && description && (
        <GatewayConfigureForm
          key={configuring}
          description={description}
          environmentId={scope.environmentId}
          setFields={editing?.credentialFields ?? []}
          enabled={editing?.enabled ?? true}
          onClose={() => setConfiguring(null)}
        />
      )}
    </Stack>
  );
}
