/** Subscriptions of the environment: filters, one search box (id, externalId, customer e-mail or name, amount), how many match, sorted by date or amount, a page at a time, and the CSV export of exactly that. */
import { Stack, Table, Text } from '@mantine/core';
import { GATEWAY_NAMES, SUBSCRIPTION_STATUSES } from '../../../server/contract/enums';
import { SubscriptionListInput } from '../../../server/contract/operator/listing';
import { api } from '../api/client';
import { CompactRow } from '../parts/CompactRow';
import { SummaryCells } from '../parts/SummaryCells';
import { useScope } from '../shell/scope';
import { dayRange, FilterBar, useFilterParams } from '../ui/filters';
import { formatDate, formatDateTime } from '../ui/format';
import { useFilteredPages } from '../ui/filtered-pages';
import { PagedTable } from '../ui/PagedTable';
import { Bidi } from '../ui/Bidi';
import { PageHeader } from '../ui/PageHeader';
import { exportHref } from '../ui/export-link';
import { ExportButton, SEARCH_HELP } from '../ui/ExportButton';

export default function SubscriptionsPage() {
  const scope = useScope();
  const filters = useFilterParams();
  const list = useFilteredPages(
    SubscriptionListInput,
    {
      environmentId: scope.environmentId,
      status: filters.get('status'),
      gateway: filters.get('gateway'),
      search: filters.get('q'),
      sort: filters.get('sort'),
      ...dayRange(filters.get('from'), filters.get('to')),
    },
    ['subscriptions', 'list'],
    (filter, cursor) => api.subscriptions.list.query({ ...filter, cursor }),
  );
  return (
    <Stack>
      <PageHeader title="Subscriptions">
        <ExportButton href={exportHref('subscriptions', list.filter)} />
      </PageHeader>
      <FilterBar
        searchLabel="sub_…, externalId, e-mail, name, 25.00"
        searchHelp={SEARCH_HELP}
        fields={[
          { name: 'status', label: 'Status', options: SUBSCRIPTION_STATUSES },
          { name: 'gateway', label: 'Gateway', options: GATEWAY_NAMES },
        ]}
      />
      <PagedTable
        list={list}
        empty={filters.any ? 'No subscription matches these filters.' : 'No subscription yet.'}
        label="Subscriptions"
        minWidth={720}
        noun={['subscription', 'subscriptions']}
        columns={['Subscription', { label: 'Amount', sort: 'amount' }, 'Status', 'Interval', 'Gateway', 'Next billing', 'External id', { label: 'Created', sort: 'created' }]}
        compact={(subscription) => <CompactRow entry={{ ...subscription, to: `/e/${scope.environmentId}/subscriptions/${subscription.id}` }} />}
        row={(subscription) => (
          <Table.Tr key={subscription.id}>
            <SummaryCells id={subscription.id} to={`/e/${scope.environmentId}/subscriptions/${subscription.id}`} amount={subscription.amount} currency={subscription.currency} status={subscription.status} />
            <Table.Td>{subscription.interval}</Table.Td>
            <Table.Td>{subscription.gateway ?? '—'}</Table.Td>
            <Table.Td>{formatDate(subscription.nextBillingAt)}</Table.Td>
            <Table.Td>
              <Text size="sm" truncate maw={200}>
                <Bidi>{subscription.externalId}</Bidi>
              </Text>
            </Table.Td>
            <Table.Td>{formatDateTime(subscription.createdAt)}</Table.Td>
          </Table.Tr>
        )}
      />
    </Stack>
  );
}
