/**
 * A payment's refunds on its page: what can still be refunded, and each
 * refund in the timeline (under its refund.created event) with its status as
 * of now: pending until the gateway gives the money back (succeeded) or not
 * (failed, with the gateway's reason). In sandbox, a developer plays the
 * gateway on a pending refund (settle or fail it), as the payment's simulator
 * buttons do; the service then hears it from the gateway's notification.
 */
import { Button, Group, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { api, type Outputs } from '../api/client';
import { useAction } from '../ui/action';
import { formatAmount } from '../ui/format';
import { useSandboxAccess } from './sandbox-access';
import { StatusBadge } from '../ui/StatusBadge';

export type PaymentRefund = Outputs['payments']['get']['refunds'][number];
type TimelineEvent = Outputs['payments']['get']['events'][number];

/** What can still be refunded: the amount less the refunds pending or succeeded (decision 18: a failed one gives its amount back). */
export const refundableOf = (payment: { amount: number }, refunds: readonly PaymentRefund[]) =>
  Math.max(0, payment.amount - refunds.filter((refund) => refund.status !== 'failed').reduce((sum, refund) => sum + refund.amount, 0));

/** Refunds still waiting for their gateway's answer (the page keeps reading until there are none). */
export const pendingRefunds = (refunds: readonly PaymentRefund[]) => refunds.filter((refund) => refund.status === 'pending');

function RefundSimulator({ refundId }: { refundId: string }) {
  const action = useAction((outcome: 'settle' | 'fail') => api.simulators.refund.mutate({ refundId, outcome }), {
    success: (_, outcome) => `Simulated: the gateway ${outcome === 'settle' ? 'settled' : 'failed'} the refund.`,
    invalidate: [['payments'], ['overview']],
  });
  return (
    <Group gap="xs">
      <Button size="compact-sm" variant="light" color="teal" loading={action.isPending && action.variables === 'settle'} disabled={action.isPending} onClick={() => action.mutate('settle')}>
        Settle refund
      </Button>
      <Button size="compact-sm" variant="light" color="red" loading={action.isPending && action.variables === 'fail'} disabled={action.isPending} onClick={() => action.mutate('fail')}>
        Fail refund
      </Button>
    </Group>
  );
}

/** One refund as it stands now. */
export function RefundEntry({ refund }: { refund: PaymentRefund }) {
  const canSimulate = useSandboxAccess();
  return (
    <Stack gap={2} role="group" aria-label={`Refund ${refund.id}`} data-testid="refund-entry">
      <Group gap="xs">
        <Text size="sm" fw={600}>
          Refund of {formatAmount(refund.amount, refund.currency)}
        </Text>
        <StatusBadge status={refund.status} />
        <Text size="sm" c="dimmed">
          {refund.id}
        </Text>
      </Group>
      {refund.reason && <Text size="sm">Reason: {refund.reason}</Text>}
      {refund.status === 'pending' && (
        <Text size="sm" c="dimmed">
          Waiting for {refund.gateway} to give the money back.
        </Text>
      )}
      {refund.status === 'pending' && canSimulate && <RefundSimulator refundId={refund.id} />}
      {refund.status === 'succeeded' && (
        <Text size="sm" c="dimmed">
          The money went back to the customer.
        </Text>
      )}
      {refund.status === 'failed' && (
        <Text size="sm" c="red">
          Not refunded{refund.failureReason ? `: ${refund.failureReason}` : '.'}
        </Text>
      )}
    </Stack>
  );
}

/** For the timeline: under each refund's refund.created event, the refund as it stands now. */
export function refundOfEvent(refunds: readonly PaymentRefund[]): (event: TimelineEvent) => ReactNode {
  const byId = new Map(refunds.map((refund) => [refund.id, refund]));
  return (event) => {
    if (event.type !== 'refund.created') return null;
    const refundId = event.payload.data.refundId;
    const refund = typeof refundId === 'string' ? byId.get(refundId) : undefined;
    return refund ? <RefundEntry refund={refund} /> : null;
  };
}
