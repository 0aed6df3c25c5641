/**
 * The refunds card of a paid payment's page: what was refunded, what waits
 * for the gateway, what can still be refunded; and "Refund" for developers
 * and above (a viewer sees the amounts only). The amount is
 * prefilled with what is still refundable and typed in the currency's units;
 * a second step names the amount and says the money goes back to the
 * customer before anything is sent. Each opening of the form gets its own
 * externalId, kept until the refund is created, so a double click or a retry
 * after a lost answer creates one refund, never two (decision 18).
 */
import { Button, Card, Group, Modal, NumberInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../api/client';
import { useCan } from '../api/session';
import { useConfirmTarget } from '../shell/confirm-target';
import { useAction } from '../ui/action';
import { askConfirmation } from '../ui/ConfirmButton';
import { formatAmount } from '../ui/format';
import { TEXT_LIMITS } from '../../../server/contract/limits';
import { refundableOf, type PaymentRefund } from './RefundsList';

export interface RefundablePayment {
  id: string;
  amount: number;
  currency: string;
  customer: { name?: string | null } | null;
}

interface Values {
  amount: number | string;
  reason: string;
}

/** The contract's limit on a refund's reason (server/contract/limits.ts). */
const REASON_MAX = TEXT_LIMITS.refundReason;
const newExternalId = (paymentId: string) => `dashboard-${paymentId}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
/** Reais typed in the form to the cents the API takes (NaN when empty). */
const toCents = (amount: number | string) => (amount === '' ? Number.NaN : Math.round(Number(amount) * 100));

export function RefundAction({ environmentId, payment, refundable }: { environmentId: string; payment: RefundablePayment; refundable: number }) {
  const queryClient = useQueryClient();
  const target = useConfirmTarget();
  const [opened, setOpened] = useState(false);
  // One externalId per refund being made: a double click or a retry after a lost answer repeats it and gets the same refund.
  const [externalId, setExternalId] = useState(() => newExternalId(payment.id));
  const form = useForm<Values>({
    initialValues: { amount: refundable / 100, reason: '' },
    validate: {
      amount: (value) => {
        const cents = toCents(value);
        if (!Number.isInteger(cents) || cents < 1) return 'Enter an amount of at least 0.01.';
        if (cents > refundable) return `At most ${formatAmount(refundable, payment.currency)} is refundable.`;
        return null;
      },
      reason: (value) => (value.trim().length > REASON_MAX ? `At most ${REASON_MAX} characters.` : null),
    },
  });
  const refund = useAction(
    async (values: Values) => {
      try {
        return await api.refunds.create.mutate({
          environmentId,
          paymentId: payment.id,
          externalId,
          amount: toCents(values.amount),
          ...(values.reason.trim() ? { reason: values.reason.trim() } : {}),
        });
      } catch (error) {
        // A refusal may come from a refund made meanwhile elsewhere: the page shows what is refundable now.
        void queryClient.invalidateQueries({ queryKey: ['payments', 'get', payment.id] });
        throw error;
      }
    },
    {
      success: (created) => `Refund ${created.id} of ${formatAmount(created.amount, payment.currency)} created (${created.status}).`,
      invalidate: [['payments'], ['overview']],
      onSuccess: () => setExternalId(newExternalId(payment.id)),
    },
  );

  const review = (values: Values) => {
    setOpened(false);
    const amount = formatAmount(toCents(values.amount), payment.currency);
    const customer = payment.customer?.name ? `the customer, ${payment.customer.name}` : 'the customer';
    askConfirmation(
      {
        title: `Refund ${amount}?`,
        message: `${amount} of this ${formatAmount(payment.amount, payment.currency)} payment goes back to ${customer}. A refund cannot be taken back.`,
        confirmLabel: `Refund ${amount}`,
        danger: true,
        target,
      },
      () => refund.mutate(values),
    );
  };
  return (
    <>
      <Button
        color="red"
        variant="light"
        loading={refund.isPending}
        onClick={() => {
          form.setValues({ amount: refundable / 100, reason: '' });
          form.clearErrors();
          setOpened(true);
        }}
      >
        Refund
      </Button>
      <Modal opened={opened} onClose={() => setOpened(false)} title="Refund payment">
        <form onSubmit={form.onSubmit(review)} noValidate>
          <Stack>
            <Text size="sm" c="dimmed">
              {formatAmount(refundable, payment.currency)} of {formatAmount(payment.amount, payment.currency)} can still be refunded.
            </Text>
            <NumberInput label={`Amount (${payment.currency})`} min={0.01} decimalScale={2} fixedDecimalScale step={1} {...form.getInputProps('amount')} />
            <TextInput label="Reason" description="Optional; kept with the refund." maxLength={REASON_MAX} {...form.getInputProps('reason')} />
            <Group justify="flex-end">
              <Button type="submit">Review refund</Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}

/** The Refund button of a paid payment's header, for developers and owners, while anything is left to refund. */
export function PaymentRefundButton({ environmentId, organizationId, payment, refunds }: { environmentId: string; organizationId: string; payment: RefundablePayment & { status: string }; refunds: readonly PaymentRefund[] }) {
  const canRefund = useCan(organizationId, 'develop');
  const refundable = refundableOf(payment, refunds);
  if (payment.status !== 'paid' || !canRefund || refundable <= 0) return null;
  return <RefundAction environmentId={environmentId} payment={payment} refundable={refundable} />;
}

/** Shown on a paid payment's page only (nothing else can be refunded, so nothing else has refunds); the button to refund is in the header. */
export function PaymentRefunds({ payment, refunds }: { payment: RefundablePayment & { status: string; amountRefunded: number }; refunds: readonly PaymentRefund[] }) {
  if (payment.status !== 'paid') return null;
  const refundable = refundableOf(payment, refunds);
  const pending = refunds.filter((refund) => refund.status === 'pending').reduce((sum, refund) => sum + refund.amount, 0);
  const money = (cents: number) => formatAmount(cents, payment.currency);
  return (
    <Card withBorder>
      <Stack gap={4}>
        <Title order={2} size="h4">
          Refunds
        </Title>
        <Text size="sm" data-testid="refund-summary">
          Refunded {money(payment.amountRefunded)} of {money(payment.amount)}
          {pending > 0 ? ` · ${money(pending)} pending at ${refunds[0]?.gateway ?? 'the gateway'}` : ''} · {refundable > 0 ? `${money(refundable)} refundable` : 'nothing left to refund'}
        </Text>
      </Stack>
    </Card>
  );
}
