/** Every status gateway_a documents, mapped to ours (see PROTOCOL.md, "Statuses"). */
import type { PaymentStatus, SubscriptionStatus } from '../../contract/enums';
import type { GatewayRefundStatus } from '../adapter';
import type { StatusTable } from '../status-table';

export const paymentStatusTable: StatusTable<PaymentStatus> = {
  entries: {
    requires_payment_method: 'pending',
    requires_action: 'pending',
    processing: 'processing',
    succeeded: 'paid',
    payment_failed: 'failed',
    canceled: 'canceled',
    expired: 'expired',
  },
  fallback: 'processing',
};

export const subscriptionStatusTable: StatusTable<SubscriptionStatus> = {
  entries: {
    trialing: 'trialing',
    active: 'active',
    past_due: 'past_due',
    // Retries exhausted but not canceled: still owed, so past_due.
    unpaid: 'past_due',
    canceled: 'canceled',
    // The card was never registered before the checkout expired.
    incomplete_expired: 'canceled',
  },
  // `active` is the non-final status that claims nothing (no failure, no past_due event).
  fallback: 'active',
};

/** Card refunds (`re_…`). */
export const refundStatusTable: StatusTable<GatewayRefundStatus> = {
  entries: {
    pending: 'pending',
    // Waiting on something at the gateway (the card network): not settled yet.
    requires_action: 'pending',
    succeeded: 'succeeded',
    failed: 'failed',
    // Withdrawn at the gateway before it settled: no money went back.
    canceled: 'failed',
  },
  // Never final: an unknown word cannot close a refund either way.
  fallback: 'pending',
};

/** Pix devoluções, in the Pix API's words. */
export const devolucaoStatusTable: StatusTable<GatewayRefundStatus> = {
  entries: {
    EM_PROCESSAMENTO: 'pending',
    DEVOLVIDO: 'succeeded',
    NAO_REALIZADO: 'failed',
  },
  fallback: 'pending',
};
