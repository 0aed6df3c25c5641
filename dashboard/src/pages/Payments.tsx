/** Payments of the environment: filters, one search box (id, externalId, customer e-mail or name, amount), how many match, sorted by date or amount, a page at a time, and the CSV export of exactly that. */
import { Button, Group, Stack, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { GATEWAY_NAMES, PAYMENT_METHODS, PAYMENT_STATUSES } from '../../../server/contract/enums';
import { PaymentListInput } from '../../../server/contract/operator/listing';
import { api } from '../api/client';
import { CompactRow } from '../parts/CompactRow';
import { NewTestPayment } from '../parts/NewTestPayment';
import { TestPaymentNotice, useTestPayments } from '../parts/TestPaymentNotice';
import { SummaryCells } from '../parts/SummaryCells';
import { useScope } from '../shell/scope';
import { dayRange, FilterBar, useFilterParams } from '../ui/filters';
import { formatDateTime } from '../ui/format';
import { useFilteredPages } from '../ui/filtered-pages';
import { PagedTable } from '../ui/PagedTable';
import { PageHeader } from '../ui/PageHeader';
import { Bidi } from '../ui/Bidi';
import { exportHref } from '../ui/export-link';
import { ExportButton, SEARCH_HELP } from '../ui/ExportButton';

export default function PaymentsPage() {
  const scope = useScope();
  const filters = useFilterParams();
  const list = useFilteredPages(
    PaymentListInput,
    {
      environmentId: scope.environmentId,
      status: filters.get('status'),
      method: filters.get('method'),
      gateway: filters.get('gateway'),
      // Payments with at least one refund, whatever its status.
      refunded: filters.get('refunded') === 'yes' ? (true as const) : undefined,
      search: filters.get('q'),
      sort: filters.get('sort'),
      ...dayRange(filters.get('from'), filters.get('to')),
    },
    ['payments', 'list'],
    (filter, cursor) => api.payments.list.query({ ...filter, cursor }),
  );
  const canTest = useTestPayments() === 'ready';
  const [creating, setCreating] = useState(false);
  return (
    <Stack>
      <PageHeader title="Payments">
        <Group gap="sm">
          <ExportButton href={exportHref('payments', list.filter)} />
          {canTest && <Button onClick={() => setCreating(true)}>New test payment</Button>}
        </Group>
      </PageHeader>
      {canTest && <NewTestPayment environmentId={scope.environmentId} opened={creating} onClose={() => setCreating(false)} />}
      <TestPaymentNotice />
      <FilterBar
        searchLabel="pay_…, externalId, e-mail, name, 25.00"
        searchHelp={SEARCH_HELP}
        fields={[
          { name: 'status', label: 'Status', options: PAYMENT_STATUSES },
          { name: 'method', label: 'Method', options: PAYMENT_METHODS },
          { name: 'gateway', label: 'Gateway', options: GATEWAY_NAMES },
          { name: 'refunded', label: 'Refunded', options: ['yes'] },
        ]}
      />
      <PagedTable
        list={list}
        empty={filters.any ? 'No payment matches these filters.' : canTest ? 'No payment yet. Create a test payment, or one with an API key of this environment.' : 'No payment yet. Create one with an API key of this environment.'}
        label="Payments"
        minWidth={720}
        noun={['payment', 'payments']}
        columns={['Payment', { label: 'Amount', sort: 'amount' }, 'Status', 'Method', 'Gateway', 'External id', { label: 'Created', sort: 'created' }]}
        compact={(payment) => <CompactRow entry={{ ...payment, to: `/e/${scope.environmentId}/payments/${payment.id}` }} />}
        row={(payment) => (
          <Table.Tr key={payment.id}>
            <SummaryCells id={payment.id} to={`/e/${scope.environmentId}/payments/${payment.id}`} amount={payment.amount} currency={payment.currency} status={payment.status} refunded={payment.amountRefunded} />
            <Table.Td>{payment.method}</Table.Td>
            <Table.Td>{payment.gateway ?? '—'}</Table.Td>
            <Table.Td>
              <Text size="sm" truncate maw={200}>
                <Bidi>{payment.externalId}</Bidi>
              </Text>
            </Table.Td>
            <Table.Td>{formatDateTime(payment.createdAt)}</Table.Td>
          </Table.Tr>
        )}
      />
    </Stack>
  );
}
