/** The dashboard's payments: a filtered, cursor-paginated list and one payment with its timeline. */
import { traceView } from '../routing/views';
import { raw, type FilterQuery } from '@mikro-orm/core';
import type { GatewayName, PaymentMethod, PaymentStatus } from '../../contract/enums';
import { Payment } from './payment';
import type { EntityManager } from '../../db/orm';
import { paymentBody } from './view';
import { createdBetween, type CreatedRange } from '../listing/filters';
import { listPage, type ListQuery } from '../listing/page-query';
import { DEFAULT_SORT, type ListSort } from '../listing/sort';
import { timelineOf } from '../listing/timeline';
import { refundsOfPayment } from '../refunds/repository';
import { refundBody } from '../refunds/view';

export interface PaymentFilter extends CreatedRange {
  environmentId: string;
  status?: PaymentStatus;
  method?: PaymentMethod;
  gateway?: GatewayName;
  /** What search.ts says: id, externalId, gateway reference, metadata value, customer e-mail or its domain, amount, card or document last 4, name. */
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

/**
 * Payments with a refund (any status): the `has_refund` flag a trigger on
 * refunds sets (migration payments_refunded_flag), read through its partial
 * indexes; not an entity property, since only this filter reads it and no
 * code writes it.
 */
const refunded = () => ({ [raw((alias: string) => `${alias}.has_refund`)]: true });

/** Every condition of the filter but the search and the page's position (listing/page-query.ts adds those). */
function paymentConditions(filter: PaymentFilter): FilterQuery<Payment>[] {
  return [
    { environment: filter.environmentId, ...createdBetween(filter) },
    ...(filter.status ? [{ status: filter.status }] : []),
    ...(filter.method ? [{ method: filter.method }] : []),
    ...(filter.gateway ? [{ gateway: filter.gateway }] : []),
    ...(filter.refunded ? [refunded() as FilterQuery<Payment>] : []),
  ];
}

/**
 * A page of the filtered list in the order asked (newest first unless
 * asked). The first page (no cursor) also carries `total`, how many payments
 * the whole filter matches, exact up to 10,000 and `totalIsLowerBound` above
 * (decision 25); later pages carry null (the count does not change with the
 * page, and is not paid for again).
 */
export async function listPayments(em: EntityManager, filter: PaymentFilter, options: { total?: boolean } = {}) {
  return listPage(em, paymentListQuery(filter), paymentRow, options);
}

/** The list's query of a filter: its conditions, search, order and page (the CSV export reads it too, as plain rows). */
export const paymentListQuery = (filter: PaymentFilter): ListQuery<Payment> => ({
  entity: Payment, list: 'payments', conditions: () => paymentConditions(filter), search: filter.search, searchIn: 'payments', sort: filter.sort ?? DEFAULT_SORT, cursor: filter.cursor, limit: filter.limit,
});

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
