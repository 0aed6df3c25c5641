/**
 * /dashboard/invitation#<token>: the invited person picks a password. The
 * token stays in the fragment, which browsers never send to a server or in
 * a Referer.
 */
import { Alert, Button, Center, Paper, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { NewPassword } from '../../../server/admin/inputs/people';
import { PASSWORD_MIN } from '../../../server/contract/people';
import { api } from '../api/client';
import { messageOf } from '../api/errors';
import { useSwitchSession } from '../api/session';

export default function InvitationPage() {
  const adopt = useSwitchSession();
  const navigate = useNavigate();
  const token = decodeURIComponent(window.location.hash.slice(1));
  const form = useForm({
    initialValues: { password: '', repeat: '' },
    validate: {
      // The server's own rule for a new password.
      password: (value) => NewPassword.safeParse(value).error?.issues[0]?.message ?? null,
      repeat: (value, values) => (value === values.password ? null : 'The passwords differ'),
    },
  });
  const accept = useMutation({
    mutationFn: (password: string) => api.auth.acceptInvitation.mutate({ token, password }),
    onSuccess: (session) => {
      history.replaceState(null, '', window.location.pathname);
      adopt(session);
      navigate('/');
    },
  });
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={420}>
        <form onSubmit={form.onSubmit((values) => accept.mutate(values.password))} noValidate>
          <Stack>
            <Title order={1} size="h2">
              Accept your invitation
            </Title>
            {!token && (
              <Alert color="red" role="alert">
                This link has no invitation token. Open the whole link you were given.
              </Alert>
            )}
            {accept.error && (
              <Alert color="red" role="alert" title="Could not accept">
                {messageOf(accept.error)}
              </Alert>
            )}
            <Text size="sm" c="dimmed">
              Choose the password you will log in with ({PASSWORD_MIN} characters or more).
            </Text>
            <PasswordInput label="Password" autoComplete="new-password" required {...form.getInputProps('password')} />
            <PasswordInput label="Repeat the password" autoComplete="new-password" required {...form.getInputProps('repeat')} />
            <Button type="submit" loading={accept.isPending} disabled={!token}>
              Join
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
