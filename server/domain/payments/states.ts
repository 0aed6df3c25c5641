/**
 * The payment state machine: statuses only move forward, final statuses
 * never change, every change but `processing` has its event, and the rules
 * for when a payment can be canceled. The `Payment` entity applies it.
 */
import { FINAL_PAYMENT_STATUSES, type PaymentStatus } from '../../contract/enums';
import { ApiError } from '../../contract/errors';
import { raises } from '../raises';

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

const ENDED: readonly PaymentStatus[] = ['canceled', 'expired', 'failed'];

export const CANCEL_RULES = raises(['cannot_cancel_pix', 'cannot_cancel_paid', 'already_canceled', 'cannot_cancel_status', 'missing_gateway_ref']);

/**
 * Whether a payment can be canceled now, checked in the order the OpenAPI
 * document states: Pix never, paid never (cancel is not a refund), a final
 * status is already over, a status the gateway is working on cannot be
 * interrupted, and there must be a gateway reference to act on.
 */
export function assertCancelable(payment: { method: string; status: string; gatewayRef?: string | null }): void {
  const status = payment.status as PaymentStatus;
  if (payment.method === 'pix') throw new ApiError('cannot_cancel_pix');
  if (status === 'paid') throw new ApiError('cannot_cancel_paid');
  if (ENDED.includes(status)) throw new ApiError('already_canceled', { status });
  if (status !== 'created' && status !== 'pending') {
    throw new ApiError('cannot_cancel_status', { status }, 'The payment is being processed by the gateway and cannot be canceled now.');
  }
  if (!payment.gatewayRef) throw new ApiError('missing_gateway_ref');
}
