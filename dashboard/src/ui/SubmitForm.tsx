/** A form checked by its own validation (not the browser's): the fields stacked, then a submit button that spins while it runs. */
import { Button, Stack } from '@mantine/core';
import type { FormEvent, ReactNode } from 'react';

export function SubmitForm({ onSubmit, submitLabel, pending, children }: { onSubmit: (event?: FormEvent<HTMLFormElement>) => void; submitLabel: string; pending: boolean; children: ReactNode }) {
  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack>
        {children}
        <Button type="submit" loading={pending}>
          {submitLabel}
        </Button>
      </Stack>
    </form>
  );
}
