/**
 * One payment or subscription as a phone shows it (ui/PagedTable.tsx's
 * `compact`): the amount and status on the first line, who paid and when on
 * the second, the merchant's own reference (externalId) small below, the
 * whole row one link to its page, so support on the go reads
 * the list without scrolling sideways and opens an entry with one tap.
 */
import { Anchor, Group, Text } from '@mantine/core';
import { Link } from 'react-router';
import { Bidi } from '../ui/Bidi';
import { formatAmount, formatDateTime } from '../ui/format';
import { StatusBadge } from '../ui/StatusBadge';

export interface CompactEntry {
  id: string;
  to: string;
  amount: number | null | undefined;
  currency: string | undefined;
  status: string;
  customer?: { name?: string | null; email?: string | null } | null;
  externalId?: string | null;
  createdAt: string;
}

export function CompactRow({ entry }: { entry: CompactEntry }) {
  const who = entry.customer?.name || entry.customer?.email;
  return (
    <Anchor component={Link} to={entry.to} underline="never" c="inherit" display="block" px="md" py="xs">
      <Group justify="space-between" wrap="nowrap" gap="xs">
        <Text fw={600}>{formatAmount(entry.amount, entry.currency)}</Text>
        <StatusBadge status={entry.status} />
      </Group>
      <Group justify="space-between" wrap="nowrap" gap="xs">
        <Text size="sm" truncate>
          {who ? <Bidi>{who}</Bidi> : '—'}
        </Text>
        <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
          {formatDateTime(entry.createdAt)}
        </Text>
      </Group>
      {entry.externalId && (
        <Text size="xs" c="dimmed" truncate>
          <Bidi>{entry.externalId}</Bidi>
        </Text>
      )}
    </Anchor>
  );
}
