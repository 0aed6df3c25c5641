/**
 * Webhook deliveries of the environment, newest event first: filter by
 * status, endpoint, event type, payment/subscription and date; open one for
 * its exact request and responses; resend it, or resend every failed one the
 * filter matches.
 */
import { Alert, Anchor, Button, Card, Group, Select, Stack, Table, Text, Title } from '@mantine/core';
import { modals } from '@mantine/modals';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { ListDeliveriesInput, ResendFailedInput } from '../../../server/admin/inputs/webhooks';
import { WEBHOOK_DELIVERY_STATUSES } from '../../../server/domain/delivery-statuses';
import { WEBHOOK_EVENT_TYPES } from '../../../server/domain/event-types';
import { api } from '../api/client';
import { useCan } from '../api/session';
import { DeliveryDrawer } from '../parts/DeliveryDrawer';
import { useScope } from '../shell/scope';
import { useAction } from '../ui/action';
import { dayRange, FilterBar, useFilterParams } from '../ui/filters';
import { formatDateTime } from '../ui/format';
import { LoadMore, usePaged } from '../ui/paged';
import { Empty, Failed, Loading } from '../ui/states';
import { StatusBadge } from '../ui/StatusBadge';

export default function DeliveriesPage() {
  const scope = useScope();
  const canResend = useCan(scope.organizationId, 'develop');
  const filters = useFilterParams();
  const [open, setOpen] = useState<string | null>(null);
  const endpoints = useQuery({ queryKey: ['webhooks', 'listEndpoints', scope.environmentId], queryFn: () => api.webhooks.listEndpoints.query({ environmentId: scope.environmentId }) });
  const common = {
    environmentId: scope.environmentId,
    endpointId: filters.get('endpoint'),
    eventType: filters.get('eventType'),
    resourceId: filters.get('q'),
    ...dayRange(filters.get('from'), filters.get('to')),
  };
  const parsed = ListDeliveriesInput.safeParse({ ...common, status: filters.get('status') });
  const filter = parsed.success ? parsed.data : null;
  const list = usePaged(['webhooks', 'listDeliveries', filter], (cursor) => api.webhooks.listDeliveries.query({ ...filter!, cursor }), filter !== null);
  const resendAll = useAction(() => api.webhooks.resendFailed.mutate(ResendFailedInput.parse(common)), {
    success: (answer) =>
      `${answer.resent} failed deliver${answer.resent === 1 ? 'y' : 'ies'} queued again.` +
      (answer.moreRemain ? ` ${answer.remaining} more remain: resend again.` : '') +
      (answer.skippedDisabledEndpoint ? ` ${answer.skippedDisabledEndpoint} skipped: their endpoint is disabled.` : ''),
    invalidate: [['webhooks'], ['overview']],
  });
  const confirmResendAll = () =>
    modals.openConfirmModal({
      title: 'Resend every failed delivery of this filter?',
      children: <Text size="sm">Each failed delivery matching the filter (whatever the status filter says) is sent again, with its original payload and signature.</Text>,
      labels: { confirm: 'Resend failed', cancel: 'Cancel' },
      onConfirm: () => resendAll.mutate(undefined),
    });
  const endpointUrl = (id: string) => endpoints.data?.find((e) => e.id === id)?.url ?? id;

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Webhook deliveries
        </Title>
        {canResend && (
          <Button color="orange" variant="light" onClick={confirmResendAll} loading={resendAll.isPending}>
            Resend all failed
          </Button>
        )}
      </Group>
      <FilterBar
        searchLabel="pay_… or sub_… id"
        fields={[
          { name: 'status', label: 'Status', options: WEBHOOK_DELIVERY_STATUSES },
          { name: 'eventType', label: 'Event type', options: WEBHOOK_EVENT_TYPES },
        ]}
      />
      <Select
        label="Endpoint"
        placeholder="Any"
        clearable
        data={(endpoints.data ?? []).map((e) => ({ value: e.id, label: e.url }))}
        value={filters.get('endpoint') ?? null}
        onChange={(value) => filters.set('endpoint', value)}
        maw={480}
      />
      {!parsed.success && <Alert color="orange">{parsed.error.issues[0]?.message}</Alert>}
      {list.error ? (
        <Failed error={list.error} />
      ) : list.isPending && filter ? (
        <Loading />
      ) : list.items.length === 0 ? (
        <Empty>{filters.any ? 'No delivery matches these filters.' : 'No delivery yet.'}</Empty>
      ) : (
        <Card withBorder p={0}>
          <Table.ScrollContainer minWidth={760}>
            <Table striped highlightOnHover verticalSpacing="xs" aria-label="Deliveries">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Event</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Endpoint</Table.Th>
                  <Table.Th>Attempts</Table.Th>
                  <Table.Th>Last answer</Table.Th>
                  <Table.Th>Created</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.items.map((delivery) => (
                  <Table.Tr key={delivery.id}>
                    <Table.Td>
                      <Anchor component="button" type="button" size="sm" onClick={() => setOpen(delivery.id)}>
                        {delivery.eventType}
                      </Anchor>
                      <Text size="xs" c="dimmed" ff="monospace">
                        {delivery.id}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <StatusBadge status={delivery.status} />
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" truncate maw={260}>
                        {endpointUrl(delivery.endpointId)}
                      </Text>
                    </Table.Td>
                    <Table.Td>{delivery.attempts}</Table.Td>
                    <Table.Td>
                      <Text size="sm" truncate maw={220}>
                        {delivery.lastResponseStatus ? `HTTP ${delivery.lastResponseStatus}` : (delivery.lastError ?? '—')}
                      </Text>
                    </Table.Td>
                    <Table.Td>{formatDateTime(delivery.createdAt)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Card>
      )}
      <LoadMore query={list} />
      <DeliveryDrawer deliveryId={open} organizationId={scope.organizationId} onClose={() => setOpen(null)} />
    </Stack>
  );
}
