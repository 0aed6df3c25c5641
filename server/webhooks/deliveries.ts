/**
 * Operator use cases for webhook deliveries: list them with their last
 * attempt, show one with its exact payload and history, and resend one.
 */
import type { FilterQuery } from '@mikro-orm/core';
import type { WebhookDeliveryStatus } from '../domain/delivery-statuses';
import { randomToken } from '../domain/ids';
import { notFound, OperatorError } from '../domain/operator-errors';
import { WebhookAttempt, WebhookDelivery } from '../db/entities';
import type { EntityManager } from '../db/orm';
import type { Services } from '../services';
import { attemptDelivery } from './attempt';
import { claimForResend } from './claims';
import { deliveryDetail, deliveryView } from './views';

export interface DeliveryFilter {
  environmentId?: string;
  endpointId?: string;
  status?: WebhookDeliveryStatus;
  eventType?: string;
  eventId?: string;
  limit: number;
}

/** Deliveries, newest event first, filtered by environment, endpoint, status, event type or event. */
export async function listDeliveries(em: EntityManager, filter: DeliveryFilter) {
  const where: FilterQuery<WebhookDelivery> = {};
  if (filter.environmentId) where.environment = filter.environmentId;
  if (filter.endpointId) where.endpoint = filter.endpointId;
  if (filter.status) where.status = filter.status;
  if (filter.eventType) where.eventType = filter.eventType;
  if (filter.eventId) where.event = filter.eventId;
  const deliveries = await em.find(WebhookDelivery, where, { orderBy: { eventSequence: 'desc', id: 'asc' }, limit: filter.limit });
  const attempts = deliveries.length
    ? await em.find(WebhookAttempt, { delivery: { $in: deliveries.map((d) => d.id) } }, { orderBy: { number: 'asc' } })
    : [];
  const last = new Map(attempts.map((attempt) => [attempt.delivery.id, attempt]));
  return deliveries.map((delivery) => deliveryView(delivery, last.get(delivery.id)));
}

/** One delivery with its exact payload, timestamp, signature and every attempt (read fresh, after any attempt just made). */
export async function getDelivery(services: Services, deliveryId: string) {
  const em = services.db.fork();
  const delivery = await em.findOne(WebhookDelivery, { id: deliveryId });
  if (!delivery) throw notFound('Webhook delivery', deliveryId);
  const attempts = await em.find(WebhookAttempt, { delivery }, { orderBy: { number: 'asc' } });
  return deliveryDetail(delivery, attempts);
}

/**
 * Sends a delivery that has an outcome (FAILED, or SENT again) once more,
 * now: the original body, timestamp and signature, as a new attempt on the
 * same delivery. Refused while the delivery is still waiting for its first
 * attempt or is being sent.
 */
export async function resendDelivery(em: EntityManager, services: Services, deliveryId: string) {
  const delivery = await em.findOne(WebhookDelivery, { id: deliveryId }, { populate: ['endpoint'] });
  if (!delivery) throw notFound('Webhook delivery', deliveryId);
  if (!delivery.endpoint.enabled) {
    throw new OperatorError('conflict', `Webhook endpoint ${delivery.endpoint.id} is disabled; enable it before resending.`);
  }
  const claim = await claimForResend(em, delivery.id, `rsd_${randomToken(24)}`, services.config.webhooks.leaseMs);
  if ('refused' in claim) {
    if (claim.refused === 'not_found') throw notFound('Webhook delivery', deliveryId);
    throw new OperatorError(
      'conflict',
      claim.refused === 'not_attempted_yet'
        ? `Webhook delivery ${delivery.id} has no outcome yet (its first attempt is queued or in flight); the dispatcher sends it.`
        : `Webhook delivery ${delivery.id} is being sent right now.`,
    );
  }
  await attemptDelivery(services, claim.claimed, 'resend');
  return getDelivery(services, delivery.id);
}
