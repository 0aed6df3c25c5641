/**
 * Refunds as background reconciliation reads them: a pending refund is read
 * back from its gateway (`getRefund`) on the schedule payments follow until
 * the gateway says it succeeded or failed, so a lost notification or a
 * create whose answer never came never leaves one pending for good. A refund
 * whose registration was interrupted and never repeated is completed with
 * its stored request and idempotency key, as a repeat of the create would.
 */
import type { EntityManager } from '../../db/orm';
import type { Services } from '../../services';
import { lostByTheGateway } from '../gateway-calls';
import { Payment } from '../payments/payment';
import type { ReconciledKind } from '../reconciliation/kind';
import { recordLostAtGateway } from '../reconciliation/lost';
import { applyRefundSnapshot } from './apply-snapshot';
import { isFinalRefundStatus, Refund } from './refund';
import { completeRegistration } from '../registration/create-once';
import { takeLapsedLease } from '../registration/lease';
import { refundRegistration } from './registration';

/** Reads a registered refund from its gateway and applies the answer; a gateway that no longer knows it is recorded (operators see it, reads stop). */
export async function refreshRefund(em: EntityManager, services: Services, refund: Refund): Promise<Refund> {
  const route = await services.gateways.forExisting(em, refund.environment.id, refund.gateway);
  const payment = await em.findOneOrFail(Payment, { id: refund.payment.id });
  const readAt = services.now();
  try {
    const snapshot = await route.adapter.getRefund(refund.gatewayRef!, payment.gatewayRef!);
    return await applyRefundSnapshot(em, services, refund.id, snapshot, readAt);
  } catch (error) {
    if (lostByTheGateway(error)) await recordLostAtGateway(em, services, Refund, refund);
    throw error;
  }
}

export const RECONCILED_REFUNDS: ReconciledKind = {
  name: 'refund',
  entity: Refund,
  async read(em, services, id) {
    let refund = await em.findOne(Refund, { id });
    if (!refund) return null;
    if (refund.gatewayRef) {
      refund = await refreshRefund(em, services, refund);
    } else if (!refund.isRegistered) {
      // A create nobody repeated: finished with its stored request when nobody else is registering it.
      if (await takeLapsedLease(em, services, Refund, id, refundRegistration.takeable)) await completeRegistration(em, services, refundRegistration, refund);
      refund = await em.fork().findOne(Refund, { id });
      if (!refund) return null;
    }
    return { final: isFinalRefundStatus(refund.status), pixExpiresAt: null };
  },
};
