/**
 * Delivery claims on their own (webhooks/claims.ts), on the real database,
 * with the service's dispatcher off so only the test claims: one endpoint's
 * events go out in order, a claim is held by one instance at a time, and a
 * lapsed claim is taken over as the next attempt.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxEvent, WebhookDelivery } from '../../server/db/entities';
import { claimNextDeliveries } from '../../server/webhooks/claims';
import { eventually } from '../support/outbox-events';
import { startTestService, type TestService } from '../support/service';
import { createTenant } from '../support/tenant';

let service: TestService;

beforeAll(async () => {
  service = await startTestService({ env: { WEBHOOK_DISPATCHER: 'false', WEBHOOK_ALLOW_LOCAL_URLS: 'true' } });
});
afterAll(() => service?.stop());

const LONG_LEASE_MS = 60_000;

/** An environment with two endpoints: `first` owes three events in order, `second` one. Nothing else is pending in it. */
async function pendingDeliveries() {
  const { environmentId } = await createTenant(service);
  const em = service.services.db.fork();
  const endpoint = async (path: string) => (await service.admin.webhooks.createEndpoint({ environmentId, url: `http://127.0.0.1:9/${path}` })).id;
  const first = await endpoint('first');
  const second = await endpoint('second');
  const events = ['payment.created', 'payment.pending', 'payment.paid'].map((type) =>
    em.create(OutboxEvent, { environment: environmentId, type, resourceId: 'pay_claims', data: {}, dispatchedAt: new Date() }),
  );
  await em.flush();
  const deliver = (endpointId: string, event: OutboxEvent) =>
    em.create(WebhookDelivery, { endpoint: endpointId, event, environment: environmentId, eventType: event.type, eventSequence: event.sequence });
  const firstDeliveries = events.map((event) => deliver(first, event));
  const secondDelivery = deliver(second, events[0]!);
  await em.flush();
  return { first: firstDeliveries.map((delivery) => delivery.id), second: secondDelivery.id, environmentId };
}

/** Claims, keeping only this environment's deliveries (other tests' environments share the table). */
async function claim(ids: string[], owner: string, leaseMs = LONG_LEASE_MS) {
  const claims = await claimNextDeliveries(service.services.db.fork(), 100, owner, leaseMs);
  return claims.filter((claimed) => ids.includes(claimed.id));
}

describe('delivery claims', () => {
  it("claims each endpoint's oldest pending delivery only, and nothing of an endpoint whose head is held", async () => {
    const { first, second } = await pendingDeliveries();
    const all = [...first, second];
    const claimed = await claim(all, 'node-1');
    expect(claimed.map((c) => c.id).sort()).toEqual([first[0], second].sort());
    expect(claimed.every((c) => c.attemptNumber === 1 && c.leaseOwner === 'node-1' && c.frozen === null)).toBe(true);
    expect(await claim(all, 'node-2')).toEqual([]);
  });

  it('moves on to the next delivery of an endpoint once its head has an outcome', async () => {
    const { first, second } = await pendingDeliveries();
    await claim([...first, second], 'node-1');
    await service.services.db.fork().nativeUpdate(WebhookDelivery, { id: first[0] }, { status: 'SENT', leaseOwner: null, leaseUntil: null });
    expect((await claim([...first, second], 'node-1')).map((c) => c.id)).toEqual([first[1]]);
  });

  it('takes over a lapsed claim as the next attempt', async () => {
    const { first, second } = await pendingDeliveries();
    const died = await claim([...first, second], 'died', 1);
    // The 1 ms lease has lapsed by the database's clock, the one the claim reads.
    const lapsed = `select count(*)::int as n from webhook_deliveries where id in (?, ?) and lease_until < clock_timestamp()`;
    await eventually(async () => (await service.services.db.fork().execute<{ n: number }[]>(lapsed, died.map((c) => c.id)))[0]!.n === 2, 5_000, 'the lease lapsed');
    const retaken = await claim([...first, second], 'node-2');
    expect(retaken.map((c) => c.id).sort()).toEqual([first[0], second].sort());
    expect(retaken.every((c) => c.attemptNumber === 2 && c.leaseOwner === 'node-2')).toBe(true);
  });

  it('never hands one delivery to two instances claiming at once', async () => {
    const { first, second } = await pendingDeliveries();
    const rounds = await Promise.all(Array.from({ length: 6 }, (_, i) => claim([...first, second], `node-${i}`)));
    const claimed = rounds.flat().map((c) => c.id);
    expect(claimed.sort()).toEqual([first[0], second].sort());
  });
});
