import { Badge } from '@mantine/core';

const COLORS: Record<string, string> = {
  paid: 'green',
  succeeded: 'green',
  active: 'green',
  SENT: 'green',
  created: 'gray',
  pending: 'yellow',
  processing: 'blue',
  trialing: 'cyan',
  PENDING: 'yellow',
  SENDING: 'blue',
  failed: 'red',
  FAILED: 'red',
  past_due: 'orange',
  canceled: 'dark',
  expired: 'dark',
  inactive: 'gray',
  incomplete: 'orange',
  revoked: 'red',
  disabled: 'gray',
};

export const statusColor = (status: string) => COLORS[status] ?? 'gray';

export function StatusBadge({ status }: { status: string }) {
  return (
    <Badge color={statusColor(status)} variant="light" radius="sm">
      {status}
    </Badge>
  );
}
