import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { WebhookDelivery } from '../../server/db/entities';
import { beginAttempt, claimNextDeliveries } from '../../server/webhooks/claims';
import { fanOutAll } from '../../server/webhooks/fan-out';
import { signatureHeader } from '../../server/contract/webhook-signature';
import type { TestDatabase } from '../support/database';
import { commitPaymentEvents, eventually, newPaymentId, sleep } from '../support/outbox-events';
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
    await sleep(300);
    expect(receiver.received).toHaveLength(0);
    await first.stop();

    const second = await instance(database, masterKey);
    const received = await receiver.waitFor(3);
    expect(received.map((d) => d.json.id)).toEqual(events.map((e) => e.id));
    // The secret sealed by the first instance signs the deliveries of the second.
    for (const delivery of received) {
      expect(delivery.headers['x-service-signature']).toBe(signatureHeader(endpoint.secret, Number(delivery.headers['x-service-timestamp']), delivery.raw));
    }
    await sleep(800); // several poll intervals: nothing is delivered twice
    expect(receiver.received).toHaveLength(3);
    expect(new Set(receiver.received.map((d) => d.headers['x-service-delivery-id'])).size).toBe(3);
    const deliveries = (await second.admin.webhooks.listDeliveries({ endpointId: endpoint.id })).items;
    expect(deliveries.map((d) => [d.status, d.attempts])).toEqual([['SENT', 1], ['SENT', 1], ['SENT', 1]]);
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
    await sleep(800);
    expect(receiver.received).toHaveLength(2);
    const em = second.services.db.fork();
    expect(await em.count(WebhookDelivery, { endpoint: endpoint.id, status: 'SENT' })).toBe(2);
  });
});

describe('the claim lease', () => {
  it('must outlast the delivery timeout, or the service refuses to start (a live attempt could be taken over)', () => {
    expect(loadConfig({}).webhooks).toMatchObject({ timeoutMs: 8_000, leaseMs: 60_000 });
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_MS: '8000', WEBHOOK_LEASE_MS: '5000' })).toThrow(/WEBHOOK_LEASE_MS/);
  });
});
