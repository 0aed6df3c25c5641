/**
 * What only a logged-in person's pages use: confirmation dialogs and
 * notifications. Loaded with the layout (App.tsx), not with the log-in page,
 * which shows its errors in place and so needs neither.
 */
import '@mantine/notifications/styles.css';
import { ModalsProvider } from '@mantine/modals';
import { Notifications } from '@mantine/notifications';
import type { ReactNode } from 'react';

export function SignedInProviders({ children }: { children: ReactNode }) {
  return (
    <ModalsProvider>
      <Notifications position="top-right" />
      {children}
    </ModalsProvider>
  );
}
