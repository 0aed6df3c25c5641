import type { Logger } from 'pino';
import { isFinalPaymentStatus, Payment } from './payment';
import type { PaymentStatus } from '../../contract/enums';
import type { EntityManager } from '../../db/orm';
import type { PaymentSnapshot } from '../../gateways';
import type { Services } from '../../services';
import { applyLocked, type LockedChange } from '../locked-apply';
import { gatewayRead, type GatewayReport } from '../report-order';

/** What a gateway reports about a payment (a read of the gateway now, or a webhook with its own event time), as a change of the locked payment. */
export function paymentSnapshotChange(log: Logger, snapshot: PaymentSnapshot, report: GatewayReport): LockedChange<Payment> {
  return (payment) => {
    if (!snapshot.statusKnown) {
      log.warn({ paymentId: payment.id, rawStatus: snapshot.rawStatus }, 'gateway reported a status missing from its status table; payment status kept');
    }
    const before = payment.status as PaymentStatus;
    const events = payment.applyGatewaySnapshot(snapshot, report);
    if (before !== 'paid' && isFinalPaymentStatus(before) && payment.status === 'paid') {
      // Decision 16: the customer paid after the payment ended here; the merchant is told by payment.paid, operators by this line.
      log.warn({ paymentId: payment.id, gateway: payment.gateway, previousStatus: before }, 'late payment: the gateway reports a payment paid after it had ended; it is now paid');
    }
    return events;
  };
}

/**
 * Applies what a gateway answered to a read (sync, reconciliation, cancel) to
 * a stored payment, under its row lock. `readAt` is when the call began: the
 * answer is the gateway's state somewhere during the call, so a webhook sent
 * meanwhile is not taken for older than it.
 */
export const applyPaymentSnapshot = (em: EntityManager, services: Pick<Services, 'outbox' | 'log'>, paymentId: string, snapshot: PaymentSnapshot, readAt: Date): Promise<Payment> =>
  applyLocked(em, services, Payment, paymentId, paymentSnapshotChange(services.log, snapshot, gatewayRead(readAt)));
