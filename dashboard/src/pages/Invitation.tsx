/**
 * /dashboard/invitation#<token>: the invited person joins. The token stays in
 * the fragment, which browsers never send to a server or in a Referer. A new
 * address chooses its password; an address that already has an account
 * accepts logged in as that account (nobody joins without accepting).
 */
import { Alert, Button, Center, Paper, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { PASSWORD_MIN } from '../../../server/contract/people';
import { api } from '../api/client';
import { messageOf } from '../api/errors';
import { useSessionQuery, useSwitchSession } from '../api/session';
import { useNewPasswordForm } from '../ui/new-password';
import { Bidi } from '../ui/Bidi';
import { Loading } from '../ui/states';

export default function InvitationPage() {
  const adopt = useSwitchSession();
  const navigate = useNavigate();
  const session = useSessionQuery().data ?? null;
  const token = decodeURIComponent(window.location.hash.slice(1));
  const invitation = useQuery({ queryKey: ['auth', 'invitation', token], queryFn: () => api.auth.invitation.query({ token }), enabled: Boolean(token), retry: false });
  const form = useNewPasswordForm();
  const accept = useMutation({
    mutationFn: (password: string | undefined) => api.auth.acceptInvitation.mutate({ token, password }),
    onSuccess: (answer) => {
      history.replaceState(null, '', window.location.pathname);
      adopt(answer);
      navigate('/');
    },
  });
  const details = invitation.data;
  const signedInAs = session?.user.email ?? null;
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={440}>
        <Stack>
          <Title order={1} size="h2">
            Accept your invitation
          </Title>
          {!token && (
            <Alert color="red" role="alert">
              This link has no invitation token. Open the whole link from the invitation mail.
            </Alert>
          )}
          {invitation.isPending && token && <Loading />}
          {invitation.error && (
            <Alert color="red" role="alert">
              {messageOf(invitation.error)}
            </Alert>
          )}
          {accept.error && (
            <Alert color="red" role="alert" title="Could not accept">
              {messageOf(accept.error)}
            </Alert>
          )}
          {details && (
            <Text>
              Join <b><Bidi>{details.organizationName}</Bidi></b> as <b>{details.role}</b>, with the address <b><Bidi>{details.email}</Bidi></b>.
            </Text>
          )}
          {details?.hasAccount && signedInAs === details.email && (
            <Button onClick={() => accept.mutate(undefined)} loading={accept.isPending}>
              Join {details.organizationName}
            </Button>
          )}
          {details?.hasAccount && signedInAs !== details.email && (
            <Alert color="blue" role="status">
              {details.email} already has an account{signedInAs ? ` (you are logged in as ${signedInAs})` : ''}: log in as {details.email} on this browser, then open the link
              from the mail again to accept.
            </Alert>
          )}
          {details && !details.hasAccount && (
            <form onSubmit={form.onSubmit((values) => accept.mutate(values.password))} noValidate>
              <Stack>
                <Text size="sm" c="dimmed">
                  Choose the password you will log in with ({PASSWORD_MIN} characters or more).
                </Text>
                <PasswordInput label="Password" autoComplete="new-password" required {...form.getInputProps('password')} />
                <PasswordInput label="Repeat the password" autoComplete="new-password" required {...form.getInputProps('repeat')} />
                <Button type="submit" loading={accept.isPending}>
                  Join
                </Button>
              </Stack>
            </form>
          )}
        </Stack>
      </Paper>
    </Center>
  );
}
