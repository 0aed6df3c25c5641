import type { Logger } from 'pino';
import { Payment } from './payment';
import type { EntityManager } from '../../db/orm';
import type { PaymentSnapshot } from '../../gateways';
import type { Services } from '../../services';
import { applyLocked, type LockedChange } from '../locked-apply';

/** What a gateway reports about a payment, as a change of the locked payment. */
export function paymentSnapshotChange(log: Logger, snapshot: PaymentSnapshot): LockedChange<Payment> {
  return (payment) => {
    if (!snapshot.statusKnown) {
      log.warn({ paymentId: payment.id, rawStatus: snapshot.rawStatus }, 'gateway reported a status missing from its status table; payment status kept');
    }
    return payment.applyGatewaySnapshot(snapshot);
  };
}

/** Applies what a gateway answered (sync, cancel) to a stored payment, under its row lock. */
export const applyPaymentSnapshot = (em: EntityManager, services: Pick<Services, 'outbox' | 'log'>, paymentId: string, snapshot: PaymentSnapshot): Promise<Payment> =>
  applyLocked(em, services, Payment, paymentId, paymentSnapshotChange(services.log, snapshot));
