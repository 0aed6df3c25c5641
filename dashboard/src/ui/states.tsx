/** What a page shows while it loads, when it failed, and when there is nothing yet. */
import { Alert, Center, Loader, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { messageOf } from '../api/errors';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <Center py="xl" role="status" aria-live="polite">
      <Loader size="sm" mr="sm" />
      <Text c="dimmed">{label}</Text>
    </Center>
  );
}

export function Failed({ error }: { error: unknown }) {
  return (
    <Alert color="red" title="Could not load this" role="alert">
      {messageOf(error)}
    </Alert>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return (
    <Text c="dimmed" py="md" ta="center">
      {children}
    </Text>
  );
}
