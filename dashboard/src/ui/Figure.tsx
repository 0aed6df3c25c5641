/**
 * One figure of a card: its label, the number (toned only when above zero,
 * "10,000+" when `more`: counts stop there, decision 25; a link when `to`),
 * and a line under it saying what it counts.
 */
import { Anchor, Text } from '@mantine/core';
import { Link } from 'react-router';

export function Figure({ label, value, more = false, to, tone, detail }: { label: string; value: number | string; more?: boolean; to?: string; tone?: string; detail?: string }) {
  const shown = typeof value === 'number' ? `${value.toLocaleString('en-US')}${more ? '+' : ''}` : value;
  const color = typeof value === 'number' && value > 0 ? tone : undefined;
  return (
    <div>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fw={700} fz={24} c={color}>
        {to ? (
          <Anchor component={Link} to={to} inherit c={color}>
            {shown}
          </Anchor>
        ) : (
          shown
        )}
      </Text>
      {detail && (
        <Text size="xs" c="dimmed">
          {detail}
        </Text>
      )}
    </div>
  );
}
