import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxEvent, WebhookAttempt, WebhookDelivery } from '../../server/db/entities';
import { createTestDatabase, onPostgres, type TestDatabase } from '../support/database';
import { commitPaymentEvents, eventually, newPaymentId } from '../support/outbox-events';
import { startReceiver, type Receiver } from '../support/receiver';
import { createEnvironment, newMasterKey, startWebhookService, type WebhookTestService } from '../support/webhook-service';

describe.runIf(onPostgres)('two service instances on one PostgreSQL database', () => {
  let database: TestDatabase;
  let a: WebhookTestService;
  let b: WebhookTestService;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    const masterKey = newMasterKey();
    const env = { MASTER_KEY: masterKey, WEBHOOK_ALLOW_LOCAL_URLS: 'true', WEBHOOK_POLL_INTERVAL_MS: '100' };
    a = await startWebhookService({ database, env });
    b = await startWebhookService({ database, env });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await a?.stop();
    await b?.stop();
    await database?.drop();
  });

  it('deliver 200 events exactly once per endpoint, each endpoint in commit order', async () => {
    const first = await startReceiver();
    const second = await startReceiver();
    receivers.push(first, second);
    const { environmentId } = await createEnvironment(a);
    await a.admin.webhooks.createEndpoint({ environmentId, url: first.url() });
    await b.admin.webhooks.createEndpoint({ environmentId, url: second.url() });

    // 100 payments, created then pending: 200 events, committed alternately through either instance.
    for (let i = 0; i < 100; i++) {
      await commitPaymentEvents(i % 2 === 0 ? a : b, environmentId, newPaymentId(), ['created', 'pending']);
    }
    const events = await a.services.db.fork().find(OutboxEvent, { environment: environmentId }, { orderBy: { sequence: 'asc' } });
    expect(events).toHaveLength(200);

    await first.waitFor(200, 60_000);
    await second.waitFor(200, 60_000);
    // Nothing more on its way: a later event, committed through each instance, reaches each endpoint next
    // (an endpoint is served its oldest due delivery first, so a repeat would have come before).
    const markers = [...(await commitPaymentEvents(a, environmentId, newPaymentId(), ['created'])), ...(await commitPaymentEvents(b, environmentId, newPaymentId(), ['created']))];
    for (const receiver of [first, second]) {
      await eventually(async () => receiver.received.length >= 202, 30_000, 'the marker events at the receiver');
      expect(receiver.received.slice(200).map((d) => d.json.id)).toEqual(markers.map((m) => m.id));
    }
    for (const receiver of [first, second]) {
      const delivered = receiver.received.slice(0, 200);
      const deliveryIds = delivered.map((d) => d.headers['x-service-delivery-id']);
      expect(new Set(deliveryIds).size).toBe(200);
      expect(delivered.map((d) => d.json.id)).toEqual(events.map((e) => e.id));
    }

    const em = a.services.db.fork();
    // The markers' outcomes are recorded just after their receivers have them.
    await eventually(async () => (await em.fork().count(WebhookDelivery, { environment: environmentId, status: 'SENT', attemptCount: 1 })) === 404, 15_000, 'every delivery SENT once');
    expect(await em.count(WebhookAttempt, { delivery: { environment: environmentId } })).toBe(404);
  }, 120_000);
});
