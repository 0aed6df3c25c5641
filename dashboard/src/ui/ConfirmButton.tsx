/**
 * Asking before a change that cannot be taken back or that affects live
 * traffic. The confirmation names the effect; with a target it also names
 * where the change lands (organization / project, sandbox or production),
 * and in production the person types the project's name before the confirm
 * button works, so a change meant for the sandbox never lands in production
 * by a slip of the environment switch.
 *
 * `askConfirmation` is for controls that are not buttons (a switch, a
 * select); `ConfirmButton` is a button that asks first.
 */
import { Alert, Button, Group, Stack, Text, TextInput, type ButtonProps } from '@mantine/core';
import { modals } from '@mantine/modals';
import { useState, type ReactNode } from 'react';

/** Where a change takes effect (shell/confirm-target.ts builds it from the page's environment). */
export interface ConfirmTarget {
  kind: 'sandbox' | 'production';
  /** "Organization / Project", as the project switcher shows it. */
  name: string;
  /** What production asks to type before the change is allowed: the project's name. */
  typeToConfirm: string;
}

export interface Confirmation {
  title: string;
  /** The effect, in the merchant's words ("New Pix payments will fail until…"). */
  message: ReactNode;
  confirmLabel: string;
  cancelLabel?: string;
  /** A red confirm button. */
  danger?: boolean;
  /** Where the change lands; production asks for the project's name to be typed. */
  target?: ConfirmTarget;
}

let opened = 0;

function TargetNotice({ target }: { target: ConfirmTarget }) {
  const production = target.kind === 'production';
  return (
    <Alert color={production ? 'red' : 'orange'} variant={production ? 'filled' : 'light'} p="xs" data-testid="confirm-target">
      <Text size="sm" fw={700}>
        {production ? 'Production' : 'Sandbox'}: <bdi>{target.name}</bdi>
      </Text>
      <Text size="xs">{production ? 'Live traffic: real customers and real money.' : 'Test data only.'}</Text>
    </Alert>
  );
}

function ConfirmBody({ confirm, onCancel, onConfirm }: { confirm: Confirmation; onCancel: () => void; onConfirm: () => void }) {
  const [typed, setTyped] = useState('');
  const mustType = confirm.target?.kind === 'production' ? confirm.target.typeToConfirm : null;
  const allowed = mustType === null || typed.trim() === mustType.trim();
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (allowed) onConfirm();
      }}
    >
      <Stack gap="sm">
        {confirm.target && <TargetNotice target={confirm.target} />}
        {typeof confirm.message === 'string' ? <Text size="sm">{confirm.message}</Text> : confirm.message}
        {mustType !== null && (
          <TextInput
            label={
              <>
                Type <bdi>{mustType}</bdi> to confirm
              </>
            }
            value={typed}
            onChange={(event) => setTyped(event.currentTarget.value)}
            autoComplete="off"
            data-autofocus
          />
        )}
        <Group justify="flex-end" gap="xs">
          <Button variant="default" onClick={onCancel}>
            {confirm.cancelLabel ?? 'Cancel'}
          </Button>
          <Button type="submit" color={confirm.danger ? 'red' : undefined} disabled={!allowed}>
            {confirm.confirmLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** Opens the confirmation; `onConfirm` runs only if the person confirms (and, in production, typed the project's name). */
export function askConfirmation(confirm: Confirmation, onConfirm: () => void): void {
  const modalId = `confirm-${++opened}`;
  modals.open({
    modalId,
    title: confirm.title,
    children: (
      <ConfirmBody
        confirm={confirm}
        onCancel={() => modals.close(modalId)}
        onConfirm={() => {
          modals.close(modalId);
          onConfirm();
        }}
      />
    ),
  });
}

export function ConfirmButton({ confirm, onConfirm, children, ...buttonProps }: ButtonProps & { confirm: Confirmation; onConfirm: () => void; children: ReactNode }) {
  return (
    <Button {...buttonProps} onClick={() => askConfirmation(confirm, onConfirm)}>
      {children}
    </Button>
  );
}
