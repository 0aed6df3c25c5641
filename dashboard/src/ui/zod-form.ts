/**
 * Forms check their values with the very Zod schemas the server validates
 * the call with (server/operator/inputs, server/contract), so a message shows
 * next to the field before anything is sent.
 */
import type { FormErrors } from '@mantine/form';
import type { z } from 'zod';

export function zodValidate<Values>(schema: z.ZodType, prepare: (values: Values) => unknown = (values) => values) {
  return (values: Values): FormErrors => {
    const result = schema.safeParse(prepare(values));
    if (result.success) return {};
    const errors: FormErrors = {};
    for (const issue of result.error.issues) {
      const path = issue.path.join('.') || 'form';
      errors[path] ??= issue.message;
    }
    return errors;
  };
}
