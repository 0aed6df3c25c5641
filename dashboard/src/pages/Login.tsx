/** E-mail and password; the service throttles attempts and sets the session cookie. */
import { Alert, Anchor, Button, Center, Paper, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api } from '../api/client';
import { messageOf } from '../api/errors';
import { useSwitchSession } from '../api/session';

export function LoginPage() {
  const adopt = useSwitchSession();
  const form = useForm({
    initialValues: { email: '', password: '' },
    validate: {
      email: (value) => (/^\S+@\S+$/.test(value.trim()) ? null : 'Enter your e-mail address'),
      password: (value) => (value ? null : 'Enter your password'),
    },
  });
  const login = useMutation({
    mutationFn: (values: { email: string; password: string }) => api.auth.login.mutate({ email: values.email.trim(), password: values.password }),
    onSuccess: adopt,
  });
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={400}>
        <form onSubmit={form.onSubmit((values) => login.mutate(values))} noValidate>
          <Stack>
            <Title order={1} size="h2">
              Log in to the payments dashboard
            </Title>
            {login.error && (
              <Alert color="red" role="alert" title="Could not log in">
                {messageOf(login.error)}
              </Alert>
            )}
            <TextInput label="E-mail" type="email" autoComplete="username" required autoFocus {...form.getInputProps('email')} />
            <PasswordInput label="Password" autoComplete="current-password" required {...form.getInputProps('password')} />
            <Button type="submit" loading={login.isPending}>
              Log in
            </Button>
            <Anchor component={Link} to="/forgot-password" size="sm">
              Forgot your password?
            </Anchor>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
