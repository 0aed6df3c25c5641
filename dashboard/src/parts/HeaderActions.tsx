/** The actions on a payment or subscription, beside its headline (parts/DetailHeader.tsx): the buttons, then why any is not offered. */
import { Group, Stack } from '@mantine/core';
import type { ReactNode } from 'react';

export function HeaderActions({ children, reasons }: { children: ReactNode; reasons: ReactNode }) {
  return (
    <Stack gap={4} role="group" aria-label="Actions" maw={560}>
      <Group gap="xs">{children}</Group>
      {reasons}
    </Stack>
  );
}
