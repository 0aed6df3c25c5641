/**
 * The person's own password: the current one, then the new one twice,
 * checked with the server's rule. Changing it ends every other session of
 * theirs (the server does that); this browser stays logged in.
 */
import { Card, PasswordInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { ChangePasswordInput } from '../../../server/contract/operator/people';
import { api } from '../api/client';
import { useAction } from '../ui/action';
import { SubmitForm } from '../ui/SubmitForm';
import { zodValidate } from '../ui/zod-form';

interface Values {
  currentPassword: string;
  newPassword: string;
  repeat: string;
}

export function ChangePassword() {
  const toInput = (values: Values) => ({ currentPassword: values.currentPassword, newPassword: values.newPassword });
  const form = useForm<Values>({
    initialValues: { currentPassword: '', newPassword: '', repeat: '' },
    validate: (values) => ({
      ...zodValidate(ChangePasswordInput, toInput)(values),
      ...(values.repeat === values.newPassword ? {} : { repeat: 'The passwords differ' }),
    }),
  });
  const change = useAction((values: Values) => api.auth.changePassword.mutate(toInput(values)), {
    success: 'Password changed; your other sessions have ended.',
    invalidate: [['auth', 'sessions']],
    onSuccess: () => form.reset(),
  });
  return (
    <Card withBorder maw={480}>
      <Title order={2} size="h4" mb="sm">
        Password
      </Title>
      <SubmitForm onSubmit={form.onSubmit((values) => change.mutate(values))} submitLabel="Change password" pending={change.isPending}>
        <PasswordInput label="Current password" autoComplete="current-password" required {...form.getInputProps('currentPassword')} />
        <PasswordInput label="New password" autoComplete="new-password" required {...form.getInputProps('newPassword')} />
        <PasswordInput label="Repeat the new password" autoComplete="new-password" required {...form.getInputProps('repeat')} />
      </SubmitForm>
    </Card>
  );
}
