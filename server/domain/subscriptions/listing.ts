/** The dashboard's subscriptions: a filtered, cursor-paginated list and one subscription with its timeline and charges. */
import { traceView } from '../routing/views';
import type { FilterQuery } from '@mikro-orm/core';
import type { GatewayName, SubscriptionStatus } from '../../contract/enums';
import { Payment } from '../payments/payment';
import { Subscription } from './subscription';
import type { EntityManager } from '../../db/orm';
import { subscriptionBody } from './view';
import { createdBetween, NEWEST_FIRST, type CreatedRange } from '../listing/filters';
import { listPage, type ListQuery } from '../listing/page-query';
import { DEFAULT_SORT, type ListSort } from '../listing/sort';
import { paymentRow } from '../payments/listing';
import { timelineOf } from '../listing/timeline';

export interface SubscriptionFilter extends CreatedRange {
  environmentId: string;
  status?: SubscriptionStatus;
  gateway?: GatewayName;
  /** What search.ts says: id, externalId, customer e-mail, amount or name. */
  search?: string;
  sort?: ListSort;
  cursor?: string;
  limit: number;
}

export function subscriptionRow(subscription: Subscription) {
  const { checkoutUrl: _checkoutUrl, ...body } = subscriptionBody(subscription);
  return { ...body, updatedAt: subscription.updatedAt.toISOString() };
}

/** Every condition of the filter but the search and the page's position (listing/page-query.ts adds those). */
function subscriptionConditions(filter: SubscriptionFilter): FilterQuery<Subscription>[] {
  return [
    { environment: filter.environmentId, ...createdBetween(filter) },
    ...(filter.status ? [{ status: filter.status }] : []),
    ...(filter.gateway ? [{ gateway: filter.gateway }] : []),
  ];
}

/** A page in the order asked; the first page also carries `total` and `totalIsLowerBound` (as listPayments). */
export async function listSubscriptions(em: EntityManager, filter: SubscriptionFilter, options: { total?: boolean } = {}) {
  return listPage(em, subscriptionListQuery(filter), subscriptionRow, options);
}

/** The list's query of a filter (the CSV export reads it too, as plain rows). */
export const subscriptionListQuery = (filter: SubscriptionFilter): ListQuery<Subscription> => ({
  entity: Subscription, list: 'subscriptions', conditions: () => subscriptionConditions(filter), search: filter.search, sort: filter.sort ?? DEFAULT_SORT, cursor: filter.cursor, limit: filter.limit,
});

/** Most recent charges shown with a subscription (a monthly one reaches this in eight years). */
const CHARGES_SHOWN = 100;

export async function subscriptionDetail(em: EntityManager, subscription: Subscription) {
  const environmentId = subscription.environment.id;
  const charges = await em.find(Payment, { environment: environmentId, subscriptionId: subscription.id }, { orderBy: NEWEST_FIRST, limit: CHARGES_SHOWN });
  return {
    subscription: {
      ...subscriptionBody(subscription),
      environmentId,
      planId: subscription.planId ?? null,
      gatewayStatus: subscription.gatewayStatus ?? null,
      metadata: subscription.metadata ?? null,
      updatedAt: subscription.updatedAt.toISOString(),
    },
    events: await timelineOf(em, environmentId, subscription.id),
    /** The payments charged for it, newest first. */
    payments: charges.map(paymentRow),
    /** How routing chose the gateway (decision 21). */
    routingTrace: traceView(subscription),
  };
}
