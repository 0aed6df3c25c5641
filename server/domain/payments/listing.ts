/** The dashboard's payments: a filtered, cursor-paginated list and one payment with its timeline. */
import { traceView } from '../routing-views';
import type { FilterQuery } from '@mikro-orm/core';
import type { GatewayName, PaymentMethod, PaymentStatus } from '../../contract/enums';
import { Payment } from './payment';
import type { EntityManager } from '../../db/orm';
import { paymentBody } from './view';
import { pageOf } from '../listing/cursor';
import { afterCursor, createdBetween, createdPosition, NEWEST_FIRST, searchCondition, type CreatedRange } from '../listing/filters';
import { timelineOf } from '../listing/timeline';
import { Refund } from '../refunds/refund';
import { refundsOfPayment } from '../refunds/repository';
import { refundBody } from '../refunds/view';

export interface PaymentFilter extends CreatedRange {
  environmentId: string;
  status?: PaymentStatus;
  method?: PaymentMethod;
  gateway?: GatewayName;
  search?: string;
  /** true: only payments with at least one refund (any status). */
  refunded?: boolean;
  cursor?: string;
  limit: number;
}

/** A row of the list: the contract's view (secrets are never in it) with the dashboard's extras. */
export function paymentRow(payment: Payment) {
  const { pix: _pix, checkoutUrl: _checkoutUrl, ...body } = paymentBody(payment);
  return {
    ...body,
    subscriptionId: payment.subscriptionId ?? null,
    createdAt: payment.createdAt.toISOString(),
    updatedAt: payment.updatedAt.toISOString(),
  };
}

/** The environment's payments that have a refund (any status), as a subquery. */
const refundedPayments = (em: EntityManager, environmentId: string) => em.createQueryBuilder(Refund, 'r').select('r.payment').where({ environment: environmentId });

export async function listPayments(em: EntityManager, filter: PaymentFilter) {
  const conditions: FilterQuery<Payment>[] = [
    { environment: filter.environmentId, ...createdBetween(filter) },
    ...(filter.status ? [{ status: filter.status }] : []),
    ...(filter.method ? [{ method: filter.method }] : []),
    ...(filter.gateway ? [{ gateway: filter.gateway }] : []),
    ...(filter.refunded ? [{ id: { $in: refundedPayments(em, filter.environmentId) } }] : []),
  ];
  const search = searchCondition(filter.search);
  if (search) conditions.push(search);
  const after = afterCursor('payments', filter.cursor);
  if (after) conditions.push(after);
  const rows = await em.find(Payment, { $and: conditions }, { orderBy: NEWEST_FIRST, limit: filter.limit + 1 });
  return pageOf('payments', rows, filter.limit, createdPosition, paymentRow);
}

/** Everything the /v1 view shows, plus where it lives and what the gateway last said, and its events with their deliveries. */
export async function paymentDetail(em: EntityManager, payment: Payment) {
  const refunds = await refundsOfPayment(em, payment.id);
  return {
    payment: {
      ...paymentBody(payment),
      environmentId: payment.environment.id,
      installments: payment.installments,
      gatewayStatus: payment.gatewayStatus ?? null,
      metadata: payment.metadata ?? null,
      subscriptionId: payment.subscriptionId ?? null,
      createdAt: payment.createdAt.toISOString(),
      updatedAt: payment.updatedAt.toISOString(),
    },
    /** Its refunds, oldest first; their events are in `events`, in commit order with the payment's. */
    refunds: refunds.map(refundBody),
    events: await timelineOf(em, payment.environment.id, [payment.id, ...refunds.map((refund) => refund.id)]),
    /** How routing chose the gateway (decision 21). */
    routingTrace: traceView(payment),
  };
}
