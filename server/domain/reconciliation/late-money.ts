/**
 * Late money is looked for (decision 28). A payment that ended without its
 * gateway's word — a Pix whose code expired by our clock while the gateway
 * still called it open, a payment canceled by this service — stays on the
 * reconciliation schedule for `RECONCILIATION_LATE_WINDOW` after it ended, on
 * the late schedule (schedule.ts), so a "paid" whose notification was lost is
 * found by itself; the read then applies decision 16 (late payment: `paid`,
 * `payment.paid`, a warn line). A payment ended by its gateway's own word is
 * not read again.
 */
import type { EntityManager } from '../../db/orm';
import type { Services } from '../../services';
import { applyLocked } from '../locked-apply';
import { isFinalPaymentStatus, Payment, type PaymentEnding } from '../payments/payment';
import type { PaymentStatus } from '../../contract/enums';
import { PIX_EXPIRY_GRACE_MS } from './schedule';

/** When the first late read is due and until when the watch lasts, for something ending at `now`. */
export function lateWatchFrom(services: Pick<Services, 'config'>, now: Date): { firstReadAt: Date; watchUntil: Date } {
  const { lateScheduleMs, lateWindowMs } = services.config.reconciliation;
  return { firstReadAt: new Date(now.getTime() + lateScheduleMs[0]!), watchUntil: new Date(now.getTime() + lateWindowMs) };
}

/**
 * Whether a read of this payment at its gateway can still tell anything: it is
 * unfinished, or it ended by our hand and nothing paid it since (the read due
 * at the end of its watch is made too; the schedule then stops).
 */
export function paymentNeedsRead(payment: Payment): boolean {
  if (!isFinalPaymentStatus(payment.status as PaymentStatus)) return true;
  return payment.endedBy != null && payment.status !== 'paid' && payment.lateWatchUntil != null;
}

async function endHere(em: EntityManager, services: Services, paymentId: string, status: 'expired' | 'canceled', by: PaymentEnding): Promise<Payment> {
  const now = services.now();
  const { firstReadAt, watchUntil } = lateWatchFrom(services, now);
  const ended = await applyLocked(em, services, Payment, paymentId, (locked) => locked.endWithoutGatewayWord(status, by, firstReadAt, watchUntil));
  if (ended.status === status && ended.endedBy === by) {
    services.log.info({ paymentId, gateway: ended.gateway, endedBy: by, status, watchUntil }, 'payment ended without its gateway\'s word; watched for late money');
  }
  return ended;
}

/**
 * After a read: a Pix its gateway still calls open once its code's expiry
 * (and the gateway's grace to expire it) has passed expires here, by our
 * clock, with `payment.expired`, and is watched for late money.
 */
export async function expireByClockWhenDue(em: EntityManager, services: Services, payment: Payment): Promise<Payment> {
  if (payment.method !== 'pix' || !payment.expiresAt || isFinalPaymentStatus(payment.status as PaymentStatus)) return payment;
  if (services.now().getTime() < payment.expiresAt.getTime() + PIX_EXPIRY_GRACE_MS) return payment;
  return endHere(em, services, payment.id, 'expired', 'clock');
}

/** A payment this service canceled at its gateway: watched for late money (the customer may have paid as it was canceled). */
export const watchCanceledByService = (em: EntityManager, services: Services, paymentId: string): Promise<Payment> => endHere(em, services, paymentId, 'canceled', 'service');
