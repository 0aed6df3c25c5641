/**
 * E-mail and password; the service throttles attempts and sets the session
 * cookie. A user with a second factor gets a second step: the code from
 * their authenticator app, or one of their recovery codes.
 */
import { Alert, Anchor, Button, Center, Paper, PasswordInput, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api } from '../api/client';
import { messageOf, statusOf } from '../api/errors';
import { useSwitchSession, type Session } from '../api/session';

type LoginAnswer = Awaited<ReturnType<typeof api.auth.login.mutate>>;
const needsSecondFactor = (answer: LoginAnswer): answer is Extract<LoginAnswer, { secondFactorRequired: true }> => 'secondFactorRequired' in answer;

function SecondStep({ challenge, onDone, onRestart }: { challenge: string; onDone: (session: Session) => void; onRestart: () => void }) {
  const [recovery, setRecovery] = useState(false);
  const [value, setValue] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const verify = useMutation({
    mutationFn: () => api.auth.verifySecondFactor.mutate(recovery ? { challenge, recoveryCode: value.trim() } : { challenge, code: value.replace(/\s/g, '') }),
    onSuccess: (answer) => onDone(answer),
  });
  const expired = statusOf(verify.error) === 401;
  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    const clean = value.replace(/\s/g, '');
    if (!recovery && !/^\d{6}$/.test(clean)) return setProblem('Enter the 6 digits your authenticator app shows');
    if (recovery && !clean) return setProblem('Enter one of your recovery codes');
    setProblem(null);
    verify.mutate();
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <Title order={1} size="h2">
          Second factor
        </Title>
        <Text size="sm">
          {recovery
            ? 'Enter one of the recovery codes you saved when you set up your second factor. Each code works once.'
            : 'Open your authenticator app and enter the 6-digit code it shows for the payments dashboard.'}
        </Text>
        {verify.error && (
          <Alert color="red" role="alert" title={expired ? 'Log in again' : 'Not accepted'}>
            {messageOf(verify.error)}
          </Alert>
        )}
        {recovery ? (
          <TextInput key="recovery" label="Recovery code" autoComplete="off" autoCapitalize="none" spellCheck={false} required autoFocus value={value} error={problem} onChange={(e) => setValue(e.currentTarget.value)} />
        ) : (
          <TextInput
            key="code"
            label="Code from your authenticator app"
            autoComplete="one-time-code"
            inputMode="numeric"
            pattern="[0-9 ]*"
            maxLength={7}
            required
            autoFocus
            value={value}
            error={problem}
            onChange={(e) => setValue(e.currentTarget.value)}
          />
        )}
        <Switch
          label="Use a recovery code instead"
          checked={recovery}
          onChange={(e) => {
            setRecovery(e.currentTarget.checked);
            setValue('');
            setProblem(null);
            verify.reset();
          }}
        />
        {expired ? (
          <Button onClick={onRestart}>Back to the log-in</Button>
        ) : (
          <Button type="submit" loading={verify.isPending}>
            Verify
          </Button>
        )}
        {!expired && (
          <Anchor component="button" type="button" size="sm" onClick={onRestart}>
            Log in as someone else
          </Anchor>
        )}
      </Stack>
    </form>
  );
}

export function LoginPage() {
  const adopt = useSwitchSession();
  const [challenge, setChallenge] = useState<string | null>(null);
  const form = useForm({
    initialValues: { email: '', password: '' },
    validate: {
      email: (value) => (/^\S+@\S+$/.test(value.trim()) ? null : 'Enter your e-mail address'),
      password: (value) => (value ? null : 'Enter your password'),
    },
  });
  const login = useMutation({
    mutationFn: (values: { email: string; password: string }) => api.auth.login.mutate({ email: values.email.trim(), password: values.password }),
    onSuccess: (answer) => {
      if (needsSecondFactor(answer)) setChallenge(answer.challenge);
      else adopt(answer);
    },
  });
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={400}>
        {challenge ? (
          <SecondStep
            challenge={challenge}
            onDone={adopt}
            onRestart={() => {
              setChallenge(null);
              form.setFieldValue('password', '');
              login.reset();
            }}
          />
        ) : (
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
        )}
      </Paper>
    </Center>
  );
}
