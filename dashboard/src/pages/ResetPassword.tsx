/** /dashboard/reset-password#<token>: the mailed link; the token stays in the fragment. Every session of the account ends. */
import { Alert, Anchor, Button, Center, Paper, PasswordInput, Stack, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api } from '../api/client';
import { messageOf } from '../api/errors';
import { useNewPasswordForm } from '../ui/new-password';

export default function ResetPasswordPage() {
  const token = decodeURIComponent(window.location.hash.slice(1));
  const form = useNewPasswordForm();
  const reset = useMutation({
    mutationFn: (password: string) => api.auth.resetPassword.mutate({ token, password }),
    onSuccess: () => history.replaceState(null, '', window.location.pathname),
  });
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={400}>
        <form onSubmit={form.onSubmit((values) => reset.mutate(values.password))} noValidate>
          <Stack>
            <Title order={1} size="h2">
              Choose a new password
            </Title>
            {reset.error && (
              <Alert color="red" role="alert">
                {messageOf(reset.error)}
              </Alert>
            )}
            {reset.isSuccess ? (
              <Alert color="green" role="status">
                Your password is changed, and every session of your account has ended. Log in with the new one.
              </Alert>
            ) : (
              <>
                <PasswordInput label="New password" autoComplete="new-password" required autoFocus {...form.getInputProps('password')} />
                <PasswordInput label="Repeat the password" autoComplete="new-password" required {...form.getInputProps('repeat')} />
                <Button type="submit" loading={reset.isPending} disabled={!token}>
                  Set the password
                </Button>
              </>
            )}
            <Anchor component={Link} to="/" size="sm">
              Go to log in
            </Anchor>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
