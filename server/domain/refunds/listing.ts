/** What operators see of refunds: an environment's or one payment's, newest first a page at a time, and one refund with where it lives and what its gateway said. */
import type { EntityManager } from '../../db/orm';
import { listPage } from '../listing/page-query';
import { Refund } from './refund';
import { refundBody } from './view';

export interface RefundFilter {
  environmentId: string;
  /** Only this payment's refunds. */
  paymentId?: string;
  cursor?: string;
  limit: number;
}

/**
 * A page of refunds, newest first, with the cursor of the next page (keyset
 * on createdAt, id: the same cursors as the payments list); the first page
 * also carries the total, exact up to 10,000 (decision 25). Read through the
 * (environment, created_at, id) index, or one payment's (payment_id,
 * created_at): an environment's refunds grow with its payments, so a page,
 * never all of them.
 */
export async function listRefunds(em: EntityManager, filter: RefundFilter) {
  return listPage(
    em,
    {
      entity: Refund,
      list: 'refunds',
      conditions: () => [{ environment: filter.environmentId, ...(filter.paymentId ? { payment: filter.paymentId } : {}) }],
      sort: 'created_desc',
      cursor: filter.cursor,
      limit: filter.limit,
    },
    refundBody,
  );
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
