/**
 * Webhook deliveries of the environment, newest event first: filter by
 * status, endpoint, event type, payment/subscription and date; open one for
 * its exact request and responses; resend it, or resend every failed one the
 * filter matches.
 */
import { Anchor, Select, Stack, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { ListDeliveriesInput, RESEND_FAILED_MAX, ResendFailedInput } from '../../../server/contract/operator/webhooks';
import { WEBHOOK_DELIVERY_STATUSES } from '../../../server/contract/delivery-statuses';
import { WEBHOOK_EVENT_TYPES } from '../../../server/contract/event-types';
import { api } from '../api/client';
import { useCan } from '../api/session';
import { DeliveryDrawer } from '../parts/DeliveryDrawer';
import { useDeliveryInAddress } from '../parts/delivery-address';
import { useScope } from '../shell/scope';
import { useAction } from '../ui/action';
import { Bidi } from '../ui/Bidi';
import { ConfirmButton } from '../ui/ConfirmButton';
import { dayRange, FilterBar, useFilterParams } from '../ui/filters';
import { formatDateTime } from '../ui/format';
import { useFilteredPages } from '../ui/filtered-pages';
import { PagedTable } from '../ui/PagedTable';
import { PageHeader } from '../ui/PageHeader';
import { StatusBadge } from '../ui/StatusBadge';

export default function DeliveriesPage() {
  const scope = useScope();
  const canResend = useCan(scope.organizationId, 'develop');
  const filters = useFilterParams();
  const [open, setOpen] = useDeliveryInAddress(scope.environmentId);
  const endpoints = useQuery({ queryKey: ['webhooks', 'listEndpoints', scope.environmentId], queryFn: () => api.webhooks.listEndpoints.query({ environmentId: scope.environmentId }) });
  const common = {
    environmentId: scope.environmentId,
    endpointId: filters.get('endpoint'),
    eventType: filters.get('eventType'),
    resourceId: filters.get('q'),
    ...dayRange(filters.get('from'), filters.get('to')),
  };
  const list = useFilteredPages(ListDeliveriesInput, { ...common, status: filters.get('status') }, ['webhooks', 'listDeliveries'], (filter, cursor) =>
    api.webhooks.listDeliveries.query({ ...filter, cursor }),
  );
  const resendAll = useAction(() => api.webhooks.resendFailed.mutate(ResendFailedInput.parse(common)), {
    success: (answer) =>
      `${answer.resent} failed deliver${answer.resent === 1 ? 'y' : 'ies'} queued again.` +
      (answer.moreRemain ? ` ${answer.remaining} more remain: resend again.` : '') +
      (answer.skippedDisabledEndpoint ? ` ${answer.skippedDisabledEndpoint} skipped: their endpoint is disabled.` : ''),
    invalidate: [['webhooks'], ['overview']],
  });
  const endpointUrl = (id: string) => endpoints.data?.find((e) => e.id === id)?.url ?? id;
  // What "Resend all failed" would take, said on the button and in its confirmation (fetched again after any resend).
  const failedFilter = ResendFailedInput.safeParse(common);
  const failed = useQuery({
    queryKey: ['webhooks', 'countFailed', failedFilter.data],
    queryFn: () => api.webhooks.countFailed.query(failedFilter.data!),
    enabled: canResend && failedFilter.success,
  });
  const resendable = failed.data?.resendable;
  const skipped = failed.data?.toDisabledEndpoint ?? 0;

  return (
    <Stack>
      <PageHeader title="Webhook deliveries">
        {canResend && (
          <ConfirmButton
            color="orange"
            variant="light"
            loading={resendAll.isPending}
            disabled={resendable === 0}
            confirm={{
              title: resendable === undefined ? 'Resend every failed delivery of this filter?' : `Resend ${resendable} failed deliver${resendable === 1 ? 'y' : 'ies'}?`,
              message:
                `${resendable === undefined ? 'Each failed delivery' : resendable === 1 ? 'The failed delivery' : `The ${resendable} failed deliveries`} matching the filter (whatever the status filter says) ` +
                `${resendable === 1 ? 'is' : 'are'} sent again, with ${resendable === 1 ? 'its' : 'their'} original payload and signature.` +
                (resendable !== undefined && resendable > RESEND_FAILED_MAX ? ` ${RESEND_FAILED_MAX} are queued now; resend again for the rest.` : '') +
                (skipped > 0 ? ` ${skipped} more ${skipped === 1 ? 'goes' : 'go'} to a disabled endpoint and ${skipped === 1 ? 'is' : 'are'} left alone.` : ''),
              confirmLabel: resendable === undefined ? 'Resend failed' : `Resend ${resendable}`,
            }}
            onConfirm={() => resendAll.mutate(undefined)}
          >
            {resendable === undefined ? 'Resend all failed' : `Resend all failed (${resendable})`}
          </ConfirmButton>
        )}
      </PageHeader>
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
      <PagedTable
        list={list}
        empty={filters.any ? 'No delivery matches these filters.' : 'No delivery yet.'}
        label="Deliveries"
        minWidth={760}
        columns={['Event', 'Status', 'Endpoint', 'Attempts', 'Last answer', 'Created']}
        row={(delivery) => (
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
                <Bidi>{endpointUrl(delivery.endpointId)}</Bidi>
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
        )}
      />
      <DeliveryDrawer deliveryId={open} organizationId={scope.organizationId} onClose={() => setOpen(null)} />
    </Stack>
  );
}
