/**
 * The person's second factor: set up an authenticator app (the password
 * again, then the QR code or the key typed in, confirmed by a code), recovery
 * codes shown once, new recovery codes, and turning it off (password and a code).
 */
import { Alert, Badge, Button, Card, Group, Image, PasswordInput, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { api } from '../api/client';
import { SESSION_KEY, useSession } from '../api/session';
import { useAction } from '../ui/action';
import { CopyValue } from '../ui/Copy';
import { formatDateTime } from '../ui/format';
import { Loaded } from '../ui/Loaded';
import { RecoveryCodesOnce } from './SecurityRecoveryCodes';

const STATUS_KEY = ['auth', 'secondFactor'];

/** The 6 digits, as authenticator apps show them (a space in the middle is fine). */
function CodeInput({ value, onChange, label = 'Code from your authenticator app', error }: { value: string; onChange: (value: string) => void; label?: string; error?: string | null }) {
  return (
    <TextInput
      label={label}
      autoComplete="one-time-code"
      inputMode="numeric"
      pattern="[0-9 ]*"
      maxLength={7}
      required
      value={value}
      error={error}
      onChange={(e) => onChange(e.currentTarget.value)}
      w={320}
    />
  );
}

const digits = (value: string) => value.replace(/\s/g, '');
const codeProblem = (value: string) => (/^\d{6}$/.test(digits(value)) ? null : 'Enter the 6 digits your app shows');

/** A form asking for one code: its value, what is wrong with it, and a submit that sends it only when it is 6 digits. */
function useCodeForm(send: (code: string) => void) {
  const [code, setCode] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const found = codeProblem(code);
    setProblem(found);
    if (!found) send(code);
  };
  return { input: <CodeInput value={code} onChange={setCode} error={problem} />, clear: () => setCode(''), onSubmit };
}

function useQrImage(text: string | null): string | null {
  const [image, setImage] = useState<string | null>(null);
  useEffect(() => {
    if (!text) return setImage(null);
    let current = true;
    import('qrcode')
      .then((qr) => qr.toDataURL(text, { margin: 1, width: 220, errorCorrectionLevel: 'M' }))
      .then((url) => current && setImage(url))
      .catch(() => current && setImage(null));
    return () => {
      current = false;
    };
  }, [text]);
  return image;
}

function Enrol({ onCodes }: { onCodes: (codes: string[]) => void }) {
  const form = useCodeForm((code) => confirm.mutate(code));
  // The password again first: a borrowed session cannot put its own phone on the account.
  const [password, setPassword] = useState('');
  const [passwordProblem, setPasswordProblem] = useState<string | null>(null);
  const start = useAction(() => api.auth.startSecondFactor.mutate({ password }), { onSuccess: () => setPassword('') });
  const pending = start.data ?? null;
  const qr = useQrImage(pending?.uri ?? null);
  const confirm = useAction((value: string) => api.auth.confirmSecondFactor.mutate({ code: digits(value) }), {
    success: 'Second factor on. Your other sessions have ended.',
    onSuccess: (answer) => {
      form.clear();
      onCodes(answer.recoveryCodes);
    },
  });
  if (!pending) {
    return (
      <Stack align="flex-start">
        <Text size="sm">
          With a second factor, logging in needs your password and a code from an authenticator app on your phone (such as Google Authenticator, Microsoft Authenticator, 1Password or
          Aegis). Some organizations require it.
        </Text>
        <form
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            const found = password ? null : 'Enter your password';
            setPasswordProblem(found);
            if (!found) start.mutate(undefined);
          }}
        >
          <Stack gap="xs" align="flex-start">
            <PasswordInput
              label="Your password"
              description="Asked again before the second factor changes."
              autoComplete="current-password"
              required
              value={password}
              error={passwordProblem}
              onChange={(e) => setPassword(e.currentTarget.value)}
              w={320}
            />
            <Button type="submit" loading={start.isPending}>
              Set up an authenticator app
            </Button>
          </Stack>
        </form>
      </Stack>
    );
  }
  return (
    <form noValidate onSubmit={form.onSubmit}>
      <Stack>
        <Text size="sm">1. Scan this QR code with your authenticator app.</Text>
        {qr ? <Image src={qr} alt={`QR code to add ${pending.account} to an authenticator app`} w={200} h={200} fit="contain" /> : <Text size="sm">Drawing the QR code…</Text>}
        <Text size="sm">Or type this key in the app (account: {pending.account}, time-based):</Text>
        <CopyValue value={pending.secret} label="secret key" secret />
        <Text size="sm">2. Enter the 6-digit code the app now shows, to confirm it works.</Text>
        {form.input}
        <Group>
          <Button type="submit" loading={confirm.isPending}>
            Confirm and turn on
          </Button>
          <Button variant="default" onClick={() => start.reset()}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function Regenerate({ onCodes }: { onCodes: (codes: string[]) => void }) {
  const form = useCodeForm((code) => regenerate.mutate(code));
  const regenerate = useAction((value: string) => api.auth.regenerateRecoveryCodes.mutate({ code: digits(value) }), {
    success: 'New recovery codes made; the old ones no longer work.',
    invalidate: [STATUS_KEY],
    onSuccess: (answer) => {
      form.clear();
      onCodes(answer.recoveryCodes);
    },
  });
  return (
    <form noValidate onSubmit={form.onSubmit}>
      <Stack gap="xs">
        <Title order={3} size="h5">
          New recovery codes
        </Title>
        <Text size="sm">Makes ten new codes; the old ones stop working.</Text>
        <Group align="flex-end">
          {form.input}
          <Button type="submit" variant="light" loading={regenerate.isPending}>
            Make new recovery codes
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function Disable() {
  const queryClient = useQueryClient();
  const [password, setPassword] = useState('');
  const [recovery, setRecovery] = useState(false);
  const [value, setValue] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const disable = useAction(
    () => api.auth.disableSecondFactor.mutate(recovery ? { password, recoveryCode: value.trim() } : { password, code: digits(value) }),
    {
      success: 'Second factor off: logging in needs your password only.',
      invalidate: [STATUS_KEY],
      onSuccess: () => {
        setPassword('');
        setValue('');
        void queryClient.invalidateQueries({ queryKey: SESSION_KEY });
      },
    },
  );
  return (
    <form
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        const found = !password ? 'Enter your password' : recovery ? (value.trim() ? null : 'Enter a recovery code') : codeProblem(value);
        setProblem(found);
        if (!found) disable.mutate(undefined);
      }}
    >
      <Stack gap="xs">
        <Title order={3} size="h5">
          Turn off
        </Title>
        <Text size="sm">Organizations that require a second factor will refuse you until you set one up again.</Text>
        <PasswordInput label="Your password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.currentTarget.value)} w={320} />
        {recovery ? (
          <TextInput label="Recovery code" autoComplete="off" required value={value} onChange={(e) => setValue(e.currentTarget.value)} w={240} />
        ) : (
          <CodeInput value={value} onChange={setValue} />
        )}
        <Switch label="Use a recovery code instead" checked={recovery} onChange={(e) => setRecovery(e.currentTarget.checked)} />
        {problem && (
          <Text size="sm" c="red.8" role="alert">
            {problem}
          </Text>
        )}
        <Group>
          <Button type="submit" color="red" variant="light" loading={disable.isPending}>
            Turn off the second factor
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export default function SecurityPage() {
  const session = useSession();
  const queryClient = useQueryClient();
  const status = useQuery({ queryKey: STATUS_KEY, queryFn: () => api.auth.secondFactor.query() });
  const [codes, setCodes] = useState<string[] | null>(null);
  const missing = session.secondFactor.missingFor.map((id) => session.memberships.find((m) => m.organizationId === id)?.organizationName ?? id);
  const closeCodes = () => {
    setCodes(null);
    void queryClient.invalidateQueries({ queryKey: STATUS_KEY });
    void queryClient.invalidateQueries({ queryKey: SESSION_KEY });
  };
  return (
    <Stack>
      <Title order={1} size="h2">
        Security
      </Title>
      {missing.length > 0 && (
        <Alert color="orange" title="A second factor is required" role="status">
          {missing.join(', ')} {missing.length === 1 ? 'requires' : 'require'} a second factor.{' '}
          {session.secondFactor.enabled && !session.secondFactor.sessionProven
            ? 'This session was opened without it: log out and log in again with your code.'
            : 'Set up an authenticator app below to see its data.'}
        </Alert>
      )}
      <Card withBorder>
        <Group justify="space-between" mb="xs">
          <Title order={2} size="h4">
            Second factor
          </Title>
          {status.data && (
            <Badge color={status.data.enabled ? 'teal' : 'gray'} variant="light">
              {status.data.enabled ? 'on' : 'off'}
            </Badge>
          )}
        </Group>
        <Loaded error={status.error} data={status.data}>
          {(data) =>
            data.enabled ? (
              <Stack>
                <Text size="sm">
                  Logging in asks for a code from your authenticator app (on since {formatDateTime(data.enabledAt)}). {data.recoveryCodesLeft} of 10 recovery codes left.
                </Text>
                <Regenerate onCodes={setCodes} />
                <Disable />
              </Stack>
            ) : (
              <Enrol onCodes={setCodes} />
            )
          }
        </Loaded>
      </Card>
      <RecoveryCodesOnce codes={codes} email={session.user.email} onClose={closeCodes} />
    </Stack>
  );
}
