import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { WebhookDelivery } from '../../server/db/entities';
import { beginAttempt, claimNextDeliveries } from '../../server/webhooks/claims';
import { fanOutAll } from '../../server/webhooks/fan-out';
import { signatureHeader } from '../../server/contract/webhook-signature';
import type { TestDatabase } from '../support/database';
import { commitPaymentEvents, deliverMarker, eventually, holdsFor, newPaymentId } from '../support/outbox-events';
import { startReceiver, type Receiver } from '../support/receiver';
import { createEnvironment, createSharedDatabase, newMasterKey, startWebhookService, type WebhookTestService } from '../support/webhook-service';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function setting(): Promise<{ database: TestDatabase; masterKey: string; receiver: Receiver }> {
  const database = await createSharedDatabase();
  const receiver = await startReceiver();
  cleanup.push(() => database.drop(), () => receiver.close());
  return { database, masterKey: newMasterKey(), receiver };
}

async function instance(database: TestDatabase, masterKey: string, env: Record<string, string> = {}): Promise<WebhookTestService> {
  const service = await startWebhookService({ database, env: { MASTER_KEY: masterKey, WEBHOOK_ALLOW_LOCAL_URLS: 'true', ...env } });
  cleanup.push(() => service.stop());
  return service;
}

describe('events committed before the process stopped are delivered when a service is back', () => {
  it('committed with no dispatcher running, delivered once by the next instance, in order', async () => {
    const { database, masterKey, receiver } = await setting();
    const first = await instance(database, masterKey, { WEBHOOK_DISPATCHER: 'false' });
    const { environmentId } = await createEnvironment(first);
    const endpoint = await first.admin.webhooks.createEndpoint({ environmentId, url: receiver.url() });
    const events = await commitPaymentEvents(first, environmentId, newPaymentId(), ['created', 'pending', 'paid']);
    // A negative only time shows: with no dispatcher running, nothing goes out.
    await holdsFor(300, () => receiver.received.length === 0, 'no delivery while no dispatcher runs');
    await first.stop();

    const second = await instance(database, masterKey);
    const received = await receiver.waitFor(3);
    expect(received.map((d) => d.json.id)).toEqual(events.map((e) => e.id));
    // The secret sealed by the first instance signs the deliveries of the second.
    for (const delivery of received) {
      expect(delivery.headers['x-service-signature']).toBe(signatureHeader(endpoint.secret, Number(delivery.headers['x-service-timestamp']), delivery.raw));
    }
    // Nothing is delivered twice: a later event's delivery arrives right after the three.
    const marker = await deliverMarker(second, environmentId, receiver);
    expect(receiver.received.map((d) => d.json.id)).toEqual([...events.map((e) => e.id), marker]);
    expect(new Set(receiver.received.map((d) => d.headers['x-service-delivery-id'])).size).toBe(4);
    const deliveries = await eventually(async () => {
      const items = (await second.admin.webhooks.listDeliveries({ endpointId: endpoint.id })).items;
      return items.every((d) => d.status !== 'PENDING') ? items : undefined;
    });
    expect(deliveries.map((d) => [d.status, d.attempts])).toEqual([['SENT', 1], ['SENT', 1], ['SENT', 1], ['SENT', 1]]);
  });

  it('a delivery claimed but left without an outcome (crash mid-flight) is attempted again once its claim expires, with the same bytes', async () => {
    const { database, masterKey, receiver } = await setting();
    const first = await instance(database, masterKey, { WEBHOOK_DISPATCHER: 'false' });
    const { environmentId } = await createEnvironment(first);
    const endpoint = await first.admin.webhooks.createEndpoint({ environmentId, url: receiver.url() });
    await commitPaymentEvents(first, environmentId, newPaymentId(), ['created', 'pending']);

    // What a dispatcher does up to the HTTP call, then the process dies: claimed, payload fixed, attempt open.
    await fanOutAll(() => first.services.db.fork());
    const [claim] = await claimNextDeliveries(first.services.db.fork(), 10, 'dsp_crashed', 1_500);
    expect(claim).toBeDefined();
    const timestamp = Math.floor(Date.now() / 1000) - 5;
    const frozenBody = JSON.stringify({ fixed: 'at the interrupted attempt' });
    const frozen = { body: frozenBody, timestamp, signature: signatureHeader(endpoint.secret, timestamp, frozenBody) };
    expect(await beginAttempt(first.services.db.fork(), claim!, frozen, 'dispatch')).not.toBeNull();
    await first.stop();

    const second = await instance(database, masterKey);
    const [again, next] = await receiver.waitFor(2, 20_000);
    // The interrupted delivery first (its endpoint's order holds), with the payload fixed before the crash.
    expect(again!.headers['x-service-delivery-id']).toBe(claim!.id);
    expect(again!.raw).toBe(frozenBody);
    expect(again!.headers['x-service-timestamp']).toBe(String(timestamp));
    expect(again!.headers['x-service-signature']).toBe(frozen.signature);
    expect(next!.json.type).toBe('payment.pending');

    const detail = await eventually(async () => {
      const d = await second.admin.webhooks.getDelivery({ deliveryId: claim!.id });
      return d.status === 'SENT' ? d : undefined;
    });
    expect(detail.attemptHistory.map((a) => [a.number, a.outcome])).toEqual([
      [1, 'INTERRUPTED'],
      [2, 'SENT'],
    ]);
    // The interrupted delivery is not sent a third time: a later event's delivery arrives right after the two.
    const marker = await deliverMarker(second, environmentId, receiver, 20_000);
    expect(receiver.received.map((d) => d.json?.id ?? 'frozen')).toEqual(['frozen', next!.json.id, marker]);
    const em = second.services.db.fork();
    expect(await eventually(async () => (await em.fork().count(WebhookDelivery, { endpoint: endpoint.id, status: 'SENT' })) === 3)).toBe(true);
  });
});

describe('the claim lease', () => {
  it('must outlast the delivery timeout, or the service refuses to start (a live attempt could be taken over)', () => {
    expect(loadConfig({}).webhooks).toMatchObject({ timeoutMs: 8_000, leaseMs: 60_000 });
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_MS: '8000', WEBHOOK_LEASE_MS: '5000' })).toThrow(/WEBHOOK_LEASE_MS/);
  });
});
