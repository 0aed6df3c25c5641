/** A button for what cannot be taken back: it asks in a confirmation modal first, then runs `onConfirm`. */
import { Button, Text, type ButtonProps } from '@mantine/core';
import { modals } from '@mantine/modals';
import type { ReactNode } from 'react';

export interface Confirmation {
  title: string;
  message: string;
  confirmLabel: string;
  cancelLabel?: string;
  /** A red confirm button. */
  danger?: boolean;
}

export function ConfirmButton({ confirm, onConfirm, children, ...buttonProps }: ButtonProps & { confirm: Confirmation; onConfirm: () => void; children: ReactNode }) {
  const ask = () =>
    modals.openConfirmModal({
      title: confirm.title,
      children: <Text size="sm">{confirm.message}</Text>,
      labels: { confirm: confirm.confirmLabel, cancel: confirm.cancelLabel ?? 'Cancel' },
      ...(confirm.danger ? { confirmProps: { color: 'red' } } : {}),
      onConfirm,
    });
  return (
    <Button {...buttonProps} onClick={ask}>
      {children}
    </Button>
  );
}
