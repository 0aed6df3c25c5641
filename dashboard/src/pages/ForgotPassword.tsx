/** "Forgot your password?": a reset link is mailed to the address if it has an account (the answer is the same either way). */
import { Alert, Anchor, Button, Center, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api } from '../api/client';
import { messageOf } from '../api/errors';

export default function ForgotPasswordPage() {
  const form = useForm({
    initialValues: { email: '' },
    validate: { email: (value) => (/^\S+@\S+$/.test(value.trim()) ? null : 'Enter your e-mail address') },
  });
  const request = useMutation({ mutationFn: (email: string) => api.auth.requestPasswordReset.mutate({ email: email.trim() }) });
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={400}>
        <form onSubmit={form.onSubmit((values) => request.mutate(values.email))} noValidate>
          <Stack>
            <Title order={1} size="h2">
              Reset your password
            </Title>
            {request.error && (
              <Alert color="red" role="alert">
                {messageOf(request.error)}
              </Alert>
            )}
            {request.isSuccess ? (
              <Alert color="green" role="status">
                If an account uses that address, a link to choose a new password is on its way. It works once, for an hour.
              </Alert>
            ) : (
              <>
                <Text size="sm" c="dimmed">
                  Enter the address you log in with; we mail you a link to choose a new password.
                </Text>
                <TextInput label="E-mail" type="email" autoComplete="username" required autoFocus {...form.getInputProps('email')} />
                <Button type="submit" loading={request.isPending}>
                  Mail me a link
                </Button>
              </>
            )}
            <Anchor component={Link} to="/" size="sm">
              Back to log in
            </Anchor>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
