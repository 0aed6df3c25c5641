/**
 * "Send test event" on an endpoint: a `webhook.test` event
 * (WEBHOOK_TEST_EVENT_TYPE) made for that one endpoint and delivered by the
 * dispatcher like any other (claimed, signed with the endpoint's live secret,
 * recorded, retried if the endpoint retries), so the merchant checks the URL
 * and their signature check against exactly what real events will look like.
 *
 * The event is written already dispatched, with its one delivery in the same
 * transaction: fan-out (fan-out.ts) never sees it, so no other endpoint of the
 * environment receives it, whatever event types they take.
 */
import { WEBHOOK_TEST_EVENT_TYPE } from '../contract/event-types';
import { OutboxEvent, WebhookDelivery } from '../db/entities';
import type { EntityManager } from '../db/orm';
import { operatorRefusal } from '../domain/refusal';
import type { Services } from '../services';
import { loadEndpoint } from './endpoints';

export async function sendTestEvent(em: EntityManager, services: Services, endpointId: string) {
  const endpoint = await loadEndpoint(em, endpointId);
  if (!endpoint.enabled) throw operatorRefusal('conflict', `Webhook endpoint ${endpoint.id} is disabled; enable it before sending a test event.`);
  const sent = await em.transactional(async (tx) => {
    const event = tx.create(OutboxEvent, {
      environment: endpoint.environment.id,
      type: WEBHOOK_TEST_EVENT_TYPE,
      resourceId: endpoint.id,
      data: { endpointId: endpoint.id, message: 'A test event sent from the dashboard. It changes nothing; answer 2xx to acknowledge it.' },
      dispatchedAt: new Date(),
    });
    await tx.flush();
    // The sequence is the database's (an identity column): read it back for the delivery's place in the endpoint's queue.
    const [row] = await tx.execute<{ sequence: string | number }[]>(`select sequence from events where id = ?`, [event.id]);
    const delivery = tx.create(WebhookDelivery, {
      endpoint: endpoint.id,
      event: event.id,
      environment: endpoint.environment.id,
      eventType: WEBHOOK_TEST_EVENT_TYPE,
      eventSequence: Number(row!.sequence),
    });
    await tx.flush();
    return { eventId: event.id, deliveryId: delivery.id };
  });
  services.outbox.notify();
  return sent;
}
