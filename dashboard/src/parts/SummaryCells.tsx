/** The cells a payment or subscription row starts with: its id (a link to its page), its amount (and what was refunded of it), its status. */
import { Anchor, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { formatAmount } from '../ui/format';
import { StatusBadge } from '../ui/StatusBadge';

export function SummaryCells({
  id,
  to,
  amount,
  currency,
  status,
  refunded,
}: {
  id: string;
  to: string;
  amount: number | null | undefined;
  currency: string | undefined;
  status: string;
  /** A payment's `amountRefunded`: shown under its amount when some was given back. */
  refunded?: number;
}) {
  return (
    <>
      <Table.Td>
        <Anchor component={Link} to={to} ff="monospace" size="sm">
          {id}
        </Anchor>
      </Table.Td>
      <Table.Td>
        {formatAmount(amount, currency)}
        {refunded ? (
          <Text size="xs" c="dimmed">
            refunded {formatAmount(refunded, currency)}
          </Text>
        ) : null}
      </Table.Td>
      <Table.Td>
        <StatusBadge status={status} />
      </Table.Td>
    </>
  );
}
