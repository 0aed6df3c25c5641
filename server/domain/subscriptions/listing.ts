/** The dashboard's subscriptions: a filtered, cursor-paginated list and one subscription with its timeline and charges. */
import { traceView } from '../routing-views';
import type { FilterQuery } from '@mikro-orm/core';
import type { GatewayName, SubscriptionStatus } from '../../contract/enums';
import { Payment } from '../payments/payment';
import { Subscription } from './subscription';
import type { EntityManager } from '../../db/orm';
import { subscriptionBody } from './view';
import { pageOf } from '../listing/cursor';
import { afterCursor, createdBetween, createdPosition, NEWEST_FIRST, searchCondition, type CreatedRange } from '../listing/filters';
import { paymentRow } from '../payments/listing';
import { timelineOf } from '../listing/timeline';

export interface SubscriptionFilter extends CreatedRange {
  environmentId: string;
  status?: SubscriptionStatus;
  gateway?: GatewayName;
  search?: string;
  cursor?: string;
  limit: number;
}

export function subscriptionRow(subscription: Subscription) {
  const { checkoutUrl: _checkoutUrl, ...body } = subscriptionBody(subscription);
  return { ...body, updatedAt: subscription.updatedAt.toISOString() };
}

export async function listSubscriptions(em: EntityManager, filter: SubscriptionFilter) {
  const conditions: FilterQuery<Subscription>[] = [
    { environment: filter.environmentId, ...createdBetween(filter) },
    ...(filter.status ? [{ status: filter.status }] : []),
    ...(filter.gateway ? [{ gateway: filter.gateway }] : []),
  ];
  const search = searchCondition(filter.search);
  if (search) conditions.push(search);
  const after = afterCursor('subscriptions', filter.cursor);
  if (after) conditions.push(after);
  const rows = await em.find(Subscription, { $and: conditions }, { orderBy: NEWEST_FIRST, limit: filter.limit + 1 });
  return pageOf('subscriptions', rows, filter.limit, createdPosition, subscriptionRow);
}

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
