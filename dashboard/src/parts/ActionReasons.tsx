/** Why an action on a payment or subscription is not offered: the person's role, or the API's own reason. */
import { List, Text } from '@mantine/core';

export function ActionReasons({ canAct, reasons }: { canAct: boolean; reasons: [string, string | null | undefined][] }) {
  const shown = reasons.filter((entry): entry is [string, string] => Boolean(entry[1]));
  if (!canAct) {
    return (
      <Text size="sm" c="dimmed">
        Your role in this organization can read but not act: a developer or an owner cancels and syncs.
      </Text>
    );
  }
  if (shown.length === 0) return null;
  return (
    <List size="sm" c="dimmed" spacing={2}>
      {shown.map(([action, reason]) => (
        <List.Item key={action}>
          {action}: {reason}
        </List.Item>
      ))}
    </List>
  );
}
