/**
 * Refund (given by the page, on a paid payment), Cancel and Sync on a
 * payment, beside its headline, for developers and owners (viewers see them
 * disabled, with why). The server says beforehand what the API would refuse
 * and why (payments.actions: a Pix cannot be canceled, a paid payment is not
 * canceled, a gateway that cannot cancel); the actions run the /v1 use cases.
 */
import { Button } from '@mantine/core';
import type { ReactNode } from 'react';
import { api } from '../api/client';
import { useAction } from '../ui/action';
import { ConfirmButton } from '../ui/ConfirmButton';
import { ActionReasons } from './ActionReasons';
import { HeaderActions } from './HeaderActions';
import { useResourceActions } from './use-resource-actions';

interface PaymentLike {
  id: string;
  status: string;
  method: string;
  gateway: string;
  updatedAt: string;
}

export function PaymentActions({ payment, organizationId, refund }: { payment: PaymentLike; organizationId: string; refund?: ReactNode }) {
  // Keyed by the payment's state: a new status reads its options again.
  const { canAct, target, can } = useResourceActions({
    organizationId,
    kind: 'payments',
    id: payment.id,
    state: [payment.status, payment.updatedAt],
    read: () => api.payments.actions.query({ paymentId: payment.id }),
  });
  const invalidate = [['payments'], ['overview']];
  const cancel = useAction(() => api.payments.cancel.mutate({ paymentId: payment.id }), { success: (answer) => `Payment ${answer.id} canceled.`, invalidate });
  const sync = useAction(() => api.payments.sync.mutate({ paymentId: payment.id }), {
    success: (answer) => `Read from ${payment.gateway}: the payment is ${answer.status}.`,
    invalidate,
  });
  return (
    <HeaderActions
      reasons={
        <ActionReasons
          canAct={canAct}
          reasons={[
            ['Cancel', can?.cancel.reason],
            ['Sync', can?.sync.reason],
          ]}
        />
      }
    >
      {refund}
      <ConfirmButton
        color="red"
        variant="light"
        disabled={!canAct || !can?.cancel.allowed || sync.isPending}
        loading={cancel.isPending}
        confirm={{
          title: `Cancel payment ${payment.id}?`,
          message: `The customer can no longer pay it: ${payment.gateway} closes its checkout, and payment.canceled is sent to your webhook endpoints. A canceled payment cannot be reopened; a new one is needed.`,
          confirmLabel: 'Cancel payment',
          cancelLabel: 'Keep it',
          danger: true,
          target,
        }}
        onConfirm={() => cancel.mutate(undefined)}
      >
        Cancel payment
      </ConfirmButton>
      <Button variant="default" disabled={!canAct || !can?.sync.allowed || cancel.isPending} loading={sync.isPending} onClick={() => sync.mutate(undefined)}>
        Sync from {payment.gateway}
      </Button>
    </HeaderActions>
  );
}
