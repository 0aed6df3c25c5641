/**
 * /dashboard/unlock-codes#<token>: the link mailed when wrong second-factor
 * codes locked the account. A button, not the page's opening, frees the
 * codes: a mail scanner that opens links must not spend it.
 */
import { Alert, Anchor, Button, Center, Paper, Stack, Text, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api } from '../api/client';
import { messageOf } from '../api/errors';

export default function UnlockCodesPage() {
  const token = decodeURIComponent(window.location.hash.slice(1));
  const unlock = useMutation({
    mutationFn: () => api.auth.unlockSecondFactorCodes.mutate({ token }),
    onSuccess: () => history.replaceState(null, '', window.location.pathname),
  });
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={440}>
        <Stack>
          <Title order={1} size="h2">
            Allow second-factor codes again
          </Title>
          {unlock.error && (
            <Alert color="red" role="alert">
              {messageOf(unlock.error)}
            </Alert>
          )}
          {unlock.isSuccess ? (
            <Alert color="green" role="status">
              Codes are accepted again for your account. Log in with your password and a code.
            </Alert>
          ) : (
            <>
              <Text size="sm">
                Too many wrong codes were entered for your account, so codes are refused for an hour. If it was you, allow them again now. If it was not, someone knows your password:
                log in and change it.
              </Text>
              <Button onClick={() => unlock.mutate()} loading={unlock.isPending} disabled={!token}>
                Allow codes again
              </Button>
            </>
          )}
          <Anchor component={Link} to="/" size="sm">
            Go to log in
          </Anchor>
        </Stack>
      </Paper>
    </Center>
  );
}
