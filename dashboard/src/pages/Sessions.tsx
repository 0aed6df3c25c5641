/** The person's own sessions (browser, when, which one is this one; ending one logs that browser out) and their password. */
import { Badge, Button, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { useSwitchSession } from '../api/session';
import { ChangePassword } from '../parts/ChangePassword';
import { useAction } from '../ui/action';
import { DataTable } from '../ui/DataTable';
import { formatDateTime } from '../ui/format';
import { Loaded } from '../ui/Loaded';

export default function SessionsPage() {
  const switchSession = useSwitchSession();
  const sessions = useQuery({ queryKey: ['auth', 'sessions'], queryFn: () => api.auth.sessions.query() });
  const revoke = useAction((input: { sessionId: string; current: boolean }) => api.auth.revokeSession.mutate({ sessionId: input.sessionId }), {
    success: (_, input) => (input.current ? 'Logged out.' : 'Session ended.'),
    invalidate: [['auth', 'sessions']],
    onSuccess: (_, input) => {
      if (input.current) switchSession(null);
    },
  });
  return (
    <Stack>
      <Title order={1} size="h2">
        Your sessions
      </Title>
      <Loaded error={sessions.error} data={sessions.data}>
        {(data) => (
          <DataTable label="Sessions" minWidth={560} verticalSpacing="sm" columns={['Browser', 'Started', 'Last seen', 'Actions']}>
            {data.map((session) => (
              <Table.Tr key={session.id}>
                <Table.Td>
                  <Text size="sm" lineClamp={2} maw={380}>
                    {session.userAgent ?? 'unknown'}
                  </Text>
                  {session.current && <Badge size="xs">this browser</Badge>}
                </Table.Td>
                <Table.Td>{formatDateTime(session.createdAt)}</Table.Td>
                <Table.Td>{formatDateTime(session.lastSeenAt)}</Table.Td>
                <Table.Td>
                  <Button
                    size="xs"
                    color="red"
                    variant="light"
                    loading={revoke.isPending && revoke.variables?.sessionId === session.id}
                    onClick={() => revoke.mutate({ sessionId: session.id, current: session.current })}
                  >
                    {session.current ? 'Log out' : 'End session'}
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </DataTable>
        )}
      </Loaded>
      <ChangePassword />
    </Stack>
  );
}
