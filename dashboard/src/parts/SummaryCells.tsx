/** The cells a payment or subscription row starts with: its id (a link to its page), its amount, its status. */
import { Anchor, Table } from '@mantine/core';
import { Link } from 'react-router';
import { formatAmount } from '../ui/format';
import { StatusBadge } from '../ui/StatusBadge';

export function SummaryCells({ id, to, amount, currency, status }: { id: string; to: string; amount: number | null | undefined; currency: string | undefined; status: string }) {
  return (
    <>
      <Table.Td>
        <Anchor component={Link} to={to} ff="monospace" size="sm">
          {id}
        </Anchor>
      </Table.Td>
      <Table.Td>{formatAmount(amount, currency)}</Table.Td>
      <Table.Td>
        <StatusBadge status={status} />
      </Table.Td>
    </>
  );
}
