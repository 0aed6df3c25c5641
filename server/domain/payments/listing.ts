/** The dashboard's payments: a filtered, cursor-paginated list and one payment with its timeline. */
import { traceView } from '../routing-views';
import type { FilterQuery } from '@mikro-orm/core';
import type { GatewayName, PaymentMethod, PaymentStatus } from '../../contract/enums';
import { Payment } from './payment';
import type { EntityManager } from '../../db/orm';
import { paymentBody } from './view';
import { pageOf } from '../listing/cursor';
import { createdBetween, type CreatedRange } from '../listing/filters';
import { searchCondition } from '../listing/search';
import { afterCursor, DEFAULT_SORT, orderOf, positionIn, type ListSort } from '../listing/sort';
import { timelineOf } from '../listing/timeline';
import { Refund } from '../refunds/refund';
import { refundsOfPayment } from '../refunds/repository';
import { refundBody } from '../refunds/view';

export interface PaymentFilter extends CreatedRange {
  environmentId: string;
  status?: PaymentStatus;
  method?: PaymentMethod;
  gateway?: GatewayName;
  /** What search.ts says: id, externalId, customer e-mail, amount or name. */
  search?: string;
  /** true: only payments with at least one refund (any status). */
  refunded?: boolean;
  sort?: ListSort;
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

/** Every condition of the filter but the page's position: what the list shows and its total counts. */
function paymentConditions(em: EntityManager, filter: PaymentFilter): FilterQuery<Payment>[] {
  const search = searchCondition(filter.search);
  return [
    { environment: filter.environmentId, ...createdBetween(filter) },
    ...(filter.status ? [{ status: filter.status }] : []),
    ...(filter.method ? [{ method: filter.method }] : []),
    ...(filter.gateway ? [{ gateway: filter.gateway }] : []),
    ...(filter.refunded ? [{ id: { $in: refundedPayments(em, filter.environmentId) } }] : []),
    ...(search ? [search as FilterQuery<Payment>] : []),
  ];
}

/**
 * A page of the filtered list in the order asked (newest first unless
 * asked). The first page (no cursor) also carries `total`, how many payments
 * the whole filter matches, counted by the database; later pages carry null
 * (the count does not change with the page, and is not paid for again).
 */
export async function listPayments(em: EntityManager, filter: PaymentFilter, options: { total?: boolean } = {}) {
  const sort = filter.sort ?? DEFAULT_SORT;
  const conditions = paymentConditions(em, filter);
  const after = afterCursor('payments', sort, filter.cursor);
  const rows = await em.find(Payment, { $and: after ? [...conditions, after as FilterQuery<Payment>] : conditions }, { orderBy: orderOf(sort), limit: filter.limit + 1 });
  const total = filter.cursor || options.total === false ? null : await em.count(Payment, { $and: paymentConditions(em, filter) });
  return { ...pageOf('payments', rows, filter.limit, positionIn(sort), paymentRow, sort), total };
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
