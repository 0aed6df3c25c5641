/**
 * The payment state machine (spec 3.1): statuses only move forward, final
 * statuses never change, and every change but `processing` has its event.
 */
import { FINAL_PAYMENT_STATUSES, type PaymentStatus } from '../contract/enums';

/** How far along a status is; anything final is as far as it gets. */
const RANK: Record<PaymentStatus, number> = {
  created: 0,
  pending: 1,
  processing: 2,
  paid: 3,
  failed: 3,
  canceled: 3,
  expired: 3,
};

export const isFinalPaymentStatus = (status: PaymentStatus): boolean => FINAL_PAYMENT_STATUSES.includes(status);

/**
 * The status to move to, or null to stay. A status the gateway table does not
 * know never moves a payment (its safe fallback only matters for new payments).
 */
export function nextPaymentStatus(current: PaymentStatus, reported: PaymentStatus, reportedIsKnown = true): PaymentStatus | null {
  if (!reportedIsKnown) return null;
  if (isFinalPaymentStatus(current) || reported === current) return null;
  return RANK[reported] > RANK[current] ? reported : null;
}

const EVENT_OF: Record<PaymentStatus, string | null> = {
  created: 'payment.created',
  pending: 'payment.pending',
  processing: null,
  paid: 'payment.paid',
  failed: 'payment.failed',
  canceled: 'payment.canceled',
  expired: 'payment.expired',
};

export const paymentEventType = (status: PaymentStatus): string | null => EVENT_OF[status];
