/** Subscriptions of the environment: filters, search by id or externalId, newest first, a page at a time. */
import { Alert, Anchor, Card, Stack, Table, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { GATEWAY_NAMES, SUBSCRIPTION_STATUSES } from '../../../server/contract/enums';
import { SubscriptionListInput } from '../../../server/admin/inputs/listing';
import { api } from '../api/client';
import { useScope } from '../shell/scope';
import { dayRange, FilterBar, useFilterParams } from '../ui/filters';
import { formatAmount, formatDate, formatDateTime } from '../ui/format';
import { LoadMore, usePaged } from '../ui/paged';
import { Empty, Failed, Loading } from '../ui/states';
import { StatusBadge } from '../ui/StatusBadge';

export default function SubscriptionsPage() {
  const scope = useScope();
  const filters = useFilterParams();
  const parsed = SubscriptionListInput.safeParse({
    environmentId: scope.environmentId,
    status: filters.get('status'),
    gateway: filters.get('gateway'),
    search: filters.get('q'),
    ...dayRange(filters.get('from'), filters.get('to')),
  });
  const filter = parsed.success ? parsed.data : null;
  const list = usePaged(['subscriptions', 'list', filter], (cursor) => api.subscriptions.list.query({ ...filter!, cursor }), filter !== null);
  return (
    <Stack>
      <Title order={1} size="h2">
        Subscriptions
      </Title>
      <FilterBar
        searchLabel="sub_… or externalId"
        fields={[
          { name: 'status', label: 'Status', options: SUBSCRIPTION_STATUSES },
          { name: 'gateway', label: 'Gateway', options: GATEWAY_NAMES },
        ]}
      />
      {!parsed.success && <Alert color="orange">{parsed.error.issues[0]?.message}</Alert>}
      {list.error ? (
        <Failed error={list.error} />
      ) : list.isPending && filter ? (
        <Loading />
      ) : list.items.length === 0 ? (
        <Empty>{filters.any ? 'No subscription matches these filters.' : 'No subscription yet.'}</Empty>
      ) : (
        <Card withBorder p={0}>
          <Table.ScrollContainer minWidth={720}>
            <Table striped highlightOnHover verticalSpacing="xs" aria-label="Subscriptions">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Subscription</Table.Th>
                  <Table.Th>Amount</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Interval</Table.Th>
                  <Table.Th>Gateway</Table.Th>
                  <Table.Th>Next billing</Table.Th>
                  <Table.Th>External id</Table.Th>
                  <Table.Th>Created</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.items.map((subscription) => (
                  <Table.Tr key={subscription.id}>
                    <Table.Td>
                      <Anchor component={Link} to={`/e/${scope.environmentId}/subscriptions/${subscription.id}`} ff="monospace" size="sm">
                        {subscription.id}
                      </Anchor>
                    </Table.Td>
                    <Table.Td>{formatAmount(subscription.amount, subscription.currency)}</Table.Td>
                    <Table.Td>
                      <StatusBadge status={subscription.status} />
                    </Table.Td>
                    <Table.Td>{subscription.interval}</Table.Td>
                    <Table.Td>{subscription.gateway ?? '—'}</Table.Td>
                    <Table.Td>{formatDate(subscription.nextBillingAt)}</Table.Td>
                    <Table.Td>
                      <Text size="sm" truncate maw={200}>
                        {subscription.externalId}
                      </Text>
                    </Table.Td>
                    <Table.Td>{formatDateTime(subscription.createdAt)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Card>
      )}
      <LoadMore query={list} />
    </Stack>
  );
}
