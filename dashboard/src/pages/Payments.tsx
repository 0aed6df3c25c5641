/** Payments of the environment: filters, search by id or externalId, newest first, a page at a time. */
import { Alert, Anchor, Button, Card, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { GATEWAY_NAMES, PAYMENT_METHODS, PAYMENT_STATUSES } from '../../../server/contract/enums';
import { PaymentListInput } from '../../../server/admin/inputs/listing';
import { api } from '../api/client';
import { useCan } from '../api/session';
import { NewTestPayment } from '../parts/NewTestPayment';
import { useScope } from '../shell/scope';
import { dayRange, FilterBar, useFilterParams } from '../ui/filters';
import { formatAmount, formatDateTime } from '../ui/format';
import { LoadMore, usePaged } from '../ui/paged';
import { Empty, Failed, Loading } from '../ui/states';
import { StatusBadge } from '../ui/StatusBadge';

export default function PaymentsPage() {
  const scope = useScope();
  const filters = useFilterParams();
  const parsed = PaymentListInput.safeParse({
    environmentId: scope.environmentId,
    status: filters.get('status'),
    method: filters.get('method'),
    gateway: filters.get('gateway'),
    search: filters.get('q'),
    ...dayRange(filters.get('from'), filters.get('to')),
  });
  const filter = parsed.success ? parsed.data : null;
  const list = usePaged(['payments', 'list', filter], (cursor) => api.payments.list.query({ ...filter!, cursor }), filter !== null);
  const canTest = useCan(scope.organizationId, 'develop') && scope.kind === 'sandbox';
  const [creating, setCreating] = useState(false);
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Payments
        </Title>
        {canTest && <Button onClick={() => setCreating(true)}>New test payment</Button>}
      </Group>
      {canTest && <NewTestPayment environmentId={scope.environmentId} opened={creating} onClose={() => setCreating(false)} />}
      <FilterBar
        searchLabel="pay_… or externalId"
        fields={[
          { name: 'status', label: 'Status', options: PAYMENT_STATUSES },
          { name: 'method', label: 'Method', options: PAYMENT_METHODS },
          { name: 'gateway', label: 'Gateway', options: GATEWAY_NAMES },
        ]}
      />
      {!parsed.success && <Alert color="orange">{parsed.error.issues[0]?.message}</Alert>}
      {list.error ? (
        <Failed error={list.error} />
      ) : list.isPending && filter ? (
        <Loading />
      ) : list.items.length === 0 ? (
        <Empty>{filters.any ? 'No payment matches these filters.' : canTest ? 'No payment yet. Create a test payment, or one with an API key of this environment.' : 'No payment yet. Create one with an API key of this environment.'}</Empty>
      ) : (
        <Card withBorder p={0}>
          <Table.ScrollContainer minWidth={720}>
            <Table striped highlightOnHover verticalSpacing="xs" aria-label="Payments">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Payment</Table.Th>
                  <Table.Th>Amount</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Method</Table.Th>
                  <Table.Th>Gateway</Table.Th>
                  <Table.Th>External id</Table.Th>
                  <Table.Th>Created</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.items.map((payment) => (
                  <Table.Tr key={payment.id}>
                    <Table.Td>
                      <Anchor component={Link} to={`/e/${scope.environmentId}/payments/${payment.id}`} ff="monospace" size="sm">
                        {payment.id}
                      </Anchor>
                    </Table.Td>
                    <Table.Td>{formatAmount(payment.amount, payment.currency)}</Table.Td>
                    <Table.Td>
                      <StatusBadge status={payment.status} />
                    </Table.Td>
                    <Table.Td>{payment.method}</Table.Td>
                    <Table.Td>{payment.gateway ?? '—'}</Table.Td>
                    <Table.Td>
                      <Text size="sm" truncate maw={200}>
                        {payment.externalId}
                      </Text>
                    </Table.Td>
                    <Table.Td>{formatDateTime(payment.createdAt)}</Table.Td>
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
