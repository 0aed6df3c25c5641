/** A modal holding one form: its fields, then the submit button, which spins while the form's action runs. */
import { Modal, type ModalProps } from '@mantine/core';
import type { FormEvent, ReactNode } from 'react';
import { SubmitForm } from './SubmitForm';

export function FormModal({
  opened,
  onClose,
  title,
  size,
  onSubmit,
  submitLabel,
  pending,
  children,
}: Pick<ModalProps, 'opened' | 'onClose' | 'title' | 'size'> & { onSubmit: (event?: FormEvent<HTMLFormElement>) => void; submitLabel: string; pending: boolean; children: ReactNode }) {
  return (
    <Modal opened={opened} onClose={onClose} title={title} size={size}>
      <SubmitForm onSubmit={onSubmit} submitLabel={submitLabel} pending={pending}>
        {children}
      </SubmitForm>
    </Modal>
  );
}
