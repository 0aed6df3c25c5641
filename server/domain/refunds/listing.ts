/** What operators see of refunds: an environment's or one payment's, newest first, and one refund with where it lives and what its gateway said. */
import type { EntityManager } from '../../db/orm';
import { Refund } from './refund';
import { refundBody } from './view';

/** At most this many refunds in one listing (a payment rarely has more than a few; an environment's newest are shown). */
export const REFUND_LIST_LIMIT = 100;

export async function listRefunds(em: EntityManager, filter: { environmentId: string; paymentId?: string }) {
  const refunds = await em.find(
    Refund,
    { environment: filter.environmentId, ...(filter.paymentId ? { payment: filter.paymentId } : {}) },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit: REFUND_LIST_LIMIT },
  );
  return refunds.map(refundBody);
}

/** The public view plus the operator's extras: the environment, the gateway's last raw status, when reconciliation reads it next. */
export function refundDetail(refund: Refund) {
  return {
    ...refundBody(refund),
    environmentId: refund.environment.id,
    gatewayStatus: refund.gatewayStatus ?? null,
    nextReadAt: refund.reconcileAt?.toISOString() ?? null,
  };
}
