/**
 * Operators' view of the local outbox: without SMTP_URL (development, the
 * embedded demo) invitation and password-reset mails are written under
 * DATA_DIR/outbox instead of being sent; this shows the newest ones. Hidden
 * when mail goes to an SMTP server.
 */
import { Card, Code, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';

export function Outbox() {
  const outbox = useQuery({ queryKey: ['users', 'outbox'], queryFn: () => api.users.outbox.query(), refetchInterval: 5_000 });
  if (!outbox.data?.local) return null;
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="xs">
        Outbox (mail is not sent: no SMTP_URL)
      </Title>
      {outbox.data.mails.length === 0 ? (
        <Text size="sm" c="dimmed">
          No mail yet. Invitations and password resets appear here.
        </Text>
      ) : (
        <Stack gap="xs">
          {outbox.data.mails.map((mail) => (
            <Code block key={mail.file}>
              {mail.text}
            </Code>
          ))}
        </Stack>
      )}
    </Card>
  );
}
