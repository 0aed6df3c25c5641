/** A new password and its repetition, checked with the server's own rule (invitation and reset pages). */
import { useForm } from '@mantine/form';
import { NewPassword } from '../../../server/contract/operator/people';

export function useNewPasswordForm() {
  return useForm({
    initialValues: { password: '', repeat: '' },
    validate: {
      password: (value) => NewPassword.safeParse(value).error?.issues[0]?.message ?? null,
      repeat: (value, values) => (value === values.password ? null : 'The passwords differ'),
    },
  });
}
