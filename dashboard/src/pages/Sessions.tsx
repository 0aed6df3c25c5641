/** The person's own sessions (browser, when, which one is this one); ending one logs that browser out. */
import { Badge, Button, Card, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { useSwitchSession } from '../api/session';
import { useAction } from '../ui/action';
import { formatDateTime } from '../ui/format';
import { Failed, Loading } from '../ui/states';

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
      {sessions.error ? (
        <Failed error={sessions.error} />
      ) : !sessions.data ? (
        <Loading />
      ) : (
        <Card withBorder p={0}>
          <Table.ScrollContainer minWidth={560}>
            <Table verticalSpacing="sm" aria-label="Sessions">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Browser</Table.Th>
                  <Table.Th>Started</Table.Th>
                  <Table.Th>Last seen</Table.Th>
                  <Table.Th>Actions</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {sessions.data.map((session) => (
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
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Card>
      )}
    </Stack>
  );
}
