/**
 * One event of an environment, for its own page in the dashboard: the
 * envelope every endpoint receives (the same one GET /v1/events lists), what
 * it is about, and its delivery to each endpoint that wanted it.
 */
import { OutboxEvent, WebhookAttempt, WebhookDelivery } from '../../db/entities';
import type { EntityManager } from '../../db/orm';

export async function eventDetail(em: EntityManager, event: OutboxEvent) {
  const deliveries = await em.find(WebhookDelivery, { event: event.id }, { populate: ['endpoint'], orderBy: { createdAt: 'asc', id: 'asc' } });
  const attempts = deliveries.length ? await em.find(WebhookAttempt, { delivery: { $in: deliveries.map((d) => d.id) } }, { orderBy: { number: 'asc' } }) : [];
  const lastAttempt = new Map(attempts.map((attempt) => [attempt.delivery.id, attempt]));
  return {
    id: event.id,
    environmentId: event.environment.id,
    type: event.type,
    sequence: event.sequence,
    /** The payment, subscription or refund the event is about. */
    resourceId: event.resourceId,
    createdAt: event.createdAt.toISOString(),
    /** Null until the dispatcher has fanned it out to the endpoints that want it. */
    dispatchedAt: event.dispatchedAt?.toISOString() ?? null,
    /** Exactly what every endpoint receives, and what GET /v1/events lists. */
    envelope: event.envelope(),
    deliveries: deliveries.map((delivery) => ({
      id: delivery.id,
      endpointId: delivery.endpoint.id,
      endpointUrl: delivery.endpoint.url,
      status: delivery.status,
      attempts: delivery.attemptCount,
      lastAttemptAt: delivery.lastAttemptAt?.toISOString() ?? null,
      lastResponseStatus: lastAttempt.get(delivery.id)?.responseStatus ?? null,
      lastError: lastAttempt.get(delivery.id)?.error ?? null,
      createdAt: delivery.createdAt.toISOString(),
    })),
  };
}
