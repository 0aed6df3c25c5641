/**
 * The timeline of a payment or subscription: its events in commit order,
 * each exactly as delivered, with its deliveries to each endpoint. A
 * payment's timeline also holds its refunds' events (several resource ids).
 */
import { OutboxEvent, WebhookAttempt, WebhookDelivery } from '../../db/entities';
import type { EntityManager } from '../../db/orm';

export async function timelineOf(em: EntityManager, environmentId: string, resourceIds: string | string[]) {
  const resourceId = typeof resourceIds === 'string' ? resourceIds : { $in: resourceIds };
  const events = await em.find(OutboxEvent, { environment: environmentId, resourceId }, { orderBy: { sequence: 'asc' } });
  const deliveries = events.length
    ? await em.find(WebhookDelivery, { event: { $in: events.map((e) => e.id) } }, { populate: ['endpoint'], orderBy: { createdAt: 'asc', id: 'asc' } })
    : [];
  const attempts = deliveries.length
    ? await em.find(WebhookAttempt, { delivery: { $in: deliveries.map((d) => d.id) } }, { orderBy: { number: 'asc' } })
    : [];
  const lastAttempt = new Map(attempts.map((attempt) => [attempt.delivery.id, attempt]));
  const byEvent = new Map<string, WebhookDelivery[]>();
  for (const delivery of deliveries) {
    const ofEvent = byEvent.get(delivery.event.id);
    if (ofEvent) ofEvent.push(delivery);
    else byEvent.set(delivery.event.id, [delivery]);
  }
  return events.map((event) => ({
    id: event.id,
    type: event.type,
    sequence: event.sequence,
    createdAt: event.createdAt.toISOString(),
    /** The envelope `{id, type, createdAt, data}` every endpoint receives. */
    payload: event.envelope(),
    /** Null until the dispatcher has fanned it out to the endpoints that want it. */
    dispatchedAt: event.dispatchedAt?.toISOString() ?? null,
    deliveries: (byEvent.get(event.id) ?? []).map((delivery) => ({
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
  }));
}
