/** Every status gateway_c documents, mapped to ours (see PROTOCOL.md, "Statuses"). */
import type { PaymentStatus, SubscriptionStatus } from '../../contract/enums';
import type { GatewayRefundStatus } from '../adapter';
import type { StatusTable } from '../status-table';

/** Single checkout links and subscription charges share one vocabulary. */
export const paymentStatusTable: StatusTable<PaymentStatus> = {
  entries: {
    // checkout link (single)
    open: 'pending',
    processing: 'processing',
    paid: 'paid',
    declined: 'failed',
    expired: 'expired',
    deactivated: 'canceled',
    // subscription charge
    pending: 'pending',
    failed: 'failed',
    canceled: 'canceled',
  },
  fallback: 'processing',
};

export const subscriptionStatusTable: StatusTable<SubscriptionStatus> = {
  entries: {
    trialing: 'trialing',
    active: 'active',
    past_due: 'past_due',
    unpaid: 'past_due',
    canceled: 'canceled',
    ended: 'canceled',
  },
  fallback: 'active',
};

/**
 * A subscription checkout link before the real subscription exists. `open`
 * is reported as active, or trialing when the plan has a trial (the adapter
 * decides); `completed` links are reported through their subscription.
 */
export const subscriptionLinkStatusTable: StatusTable<SubscriptionStatus> = {
  entries: {
    open: 'active',
    completed: 'active',
    expired: 'canceled',
    deactivated: 'canceled',
  },
  fallback: 'active',
};

/** Refunds (`rf_…`). */
export const refundStatusTable: StatusTable<GatewayRefundStatus> = {
  entries: {
    pending: 'pending',
    processing: 'pending',
    succeeded: 'succeeded',
    failed: 'failed',
    // Withdrawn before it went through: no money went back.
    canceled: 'failed',
  },
  // Never final: an unknown word cannot close a refund either way.
  fallback: 'pending',
};
