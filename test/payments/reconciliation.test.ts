/**
 * Money truth (decisions 16, 17, 20): background reconciliation finds what
 * lost notifications never said, late money lands, a gateway moving a payment
 * back is followed, and a resource the gateway no longer knows is recorded
 * instead of being retried forever. Real service, real simulators.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxEvent } from '../../server/db/entities';
import { Payment } from '../../server/domain/payments/payment';
import { Subscription } from '../../server/domain/subscriptions/subscription';
import { createTestDatabase, onPostgres } from '../support/database';
import { startSandbox } from '../support/gateways';
import { call, validPayment } from '../support/http';
import { readUntil } from '../support/outbox-events';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { startTestService } from '../support/service';
import { createTenant } from '../support/tenant';
import { newMasterKey } from '../support/webhook-service';
import { lastEventSecond } from '../support/whole-seconds';

/** First read one second after creation, then every two: the production schedule in miniature. */
const FAST_RECONCILIATION = { RECONCILIATION_SCHEDULE: '1s,2s', RECONCILIATION_POLL_INTERVAL_MS: '100', RATE_LIMIT_PAYMENTS_SYNC: '1000', RATE_LIMIT_PAYMENTS_CANCEL: '1000' };

const customer = { name: 'Ana Souza', email: 'ana@example.com', document: '529.982.247-25', phone: '11987654321' };

describe('reconciliation and the gateway as the truth', () => {
  let world: SandboxedService;
  beforeAll(async () => {
    world = await startSandboxedService({ env: FAST_RECONCILIATION, routes: { PIX: 'gateway_a', CARD: 'gateway_a', SUBSCRIPTION: 'gateway_a' } });
  });
  afterAll(() => world?.stop());

  const api = (method: 'GET' | 'POST', path: string, body?: unknown) => call(world.service.url, method, path, { key: world.tenant.apiKey, body });
  const eventTypes = async (resourceId: string) =>
    (await world.service.services.db.fork().find(OutboxEvent, { resourceId }, { orderBy: { sequence: 'asc' } })).map((e) => e.type);
  const withWebhooksLost = async (act: () => Promise<unknown>) => {
    world.sandbox.sims.gateway_a.setWebhooksEnabled(false);
    try {
      await act();
    } finally {
      world.sandbox.sims.gateway_a.setWebhooksEnabled(true);
    }
  };

  it('a Pix paid at the gateway whose notification was lost becomes paid by the first read, without any sync', async () => {
    const created = await api('POST', '/v1/payments', validPayment({ method: 'pix' }));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'pending', paidAt: null, subscriptionId: null });
    expect(Date.parse(created.body.expiresAt)).toBeGreaterThan(Date.now());
    const syncsBefore = world.sandbox.sims.gateway_a.stats().calls.getPayment ?? 0;
    await withWebhooksLost(() => world.sandbox.sims.gateway_a.payPayment(created.body.gatewayRef));
    expect((await api('GET', `/v1/payments/${created.body.id}`)).body.status).toBe('pending');

    const read = await readUntil(() => api('GET', `/v1/payments/${created.body.id}`), (reply) => reply.body.status === 'paid');
    expect(read.body.status).toBe('paid');
    // paidAt is gateway_a's own time of payment (decision 26), in whole seconds: not before the second the payment was made.
    expect(Date.parse(read.body.paidAt)).toBeGreaterThanOrEqual(Math.floor(Date.parse(created.body.createdAt) / 1000) * 1000);
    expect(await eventTypes(created.body.id)).toEqual(['payment.created', 'payment.pending', 'payment.paid']);
    // The read came from reconciliation: once, and nobody called /sync.
    expect((world.sandbox.sims.gateway_a.stats().calls.getPayment ?? 0) - syncsBefore).toBe(1);
    const stored = await world.service.services.db.fork().findOneOrFail(Payment, { id: created.body.id });
    expect(stored.reconcileAt).toBeNull();
    expect(stored.reconciledAt).toBeInstanceOf(Date);
  });

  it('a subscription the gateway moved to past_due with its notification lost becomes past_due, with subscription.past_due', async () => {
    const created = await api('POST', '/v1/subscriptions', { amount: 2990, interval: 'monthly', externalId: `sub-${Date.now()}`, customer });
    expect(created.status).toBe(201);
    await withWebhooksLost(() => world.sandbox.sims.gateway_a.markPastDue(created.body.gatewayRef));
    const read = await readUntil(() => api('GET', `/v1/subscriptions/${created.body.id}`), (reply) => reply.body.status === 'past_due');
    expect(read.body.status).toBe('past_due');
    expect(await eventTypes(created.body.id)).toContain('subscription.past_due');
  });

  it('an expired Pix that its gateway then reports paid becomes paid, with payment.paid and one warn line', async () => {
    const created = await api('POST', '/v1/payments', validPayment({ method: 'pix' }));
    await world.sandbox.sims.gateway_a.expirePayment(created.body.gatewayRef);
    expect((await api('GET', `/v1/payments/${created.body.id}`)).body.status).toBe('expired');
    await world.sandbox.sims.gateway_a.setPaymentStatus(created.body.gatewayRef, 'succeeded');
    const read = await api('GET', `/v1/payments/${created.body.id}`);
    expect(read.body.status).toBe('paid');
    expect(await eventTypes(created.body.id)).toEqual(['payment.created', 'payment.pending', 'payment.expired', 'payment.paid']);
    const warnings = world.service
      .logs()
      .split('\n')
      .filter((line) => line.includes(created.body.id) && line.includes('late payment'));
    expect(warnings).toHaveLength(1);
    // The same report again (a redelivery, a sync) changes nothing and warns no more.
    expect((await api('POST', `/v1/payments/${created.body.id}/sync`)).body.status).toBe('paid');
    expect(world.service.logs().split('\n').filter((line) => line.includes(created.body.id) && line.includes('late payment'))).toHaveLength(1);
  });

  it('a card the gateway moved from processing back to awaiting payment follows it on sync, and can then be canceled', async () => {
    const created = await api('POST', '/v1/payments', validPayment({ method: 'card' }));
    await world.sandbox.sims.gateway_a.setPaymentStatus(created.body.gatewayRef, 'processing');
    expect((await api('GET', `/v1/payments/${created.body.id}`)).body.status).toBe('processing');
    expect((await api('POST', `/v1/payments/${created.body.id}/cancel`)).status).toBe(409);
    await withWebhooksLost(() => world.sandbox.sims.gateway_a.setPaymentStatus(created.body.gatewayRef, 'requires_payment_method'));
    const synced = await api('POST', `/v1/payments/${created.body.id}/sync`);
    expect(synced.status).toBe(200);
    expect(synced.body.status).toBe('pending');
    const canceled = await api('POST', `/v1/payments/${created.body.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.status).toBe('canceled');
  });

  it('a webhook older than the newest report applied changes nothing (the gateway event time orders them)', async () => {
    const created = await api('POST', '/v1/payments', validPayment({ method: 'card' }));
    const sim = world.sandbox.sims.gateway_a;
    await withWebhooksLost(() => sim.setPaymentStatus(created.body.gatewayRef, 'processing'));
    // gateway_a dates its events in whole seconds: the next state goes in a later second than the lost event's.
    const lostSecond = lastEventSecond(sim.webhookLog());
    await readUntil(async () => Math.floor(Date.now() / 1000), (second) => second > lostSecond, 5_000);
    await sim.setPaymentStatus(created.body.gatewayRef, 'requires_action');
    expect((await api('GET', `/v1/payments/${created.body.id}`)).body.status).toBe('pending');
    // The lost `processing` notification arrives now, late: it is older than what was applied.
    const lost = sim.webhookLog().filter((delivery) => delivery.body.includes(created.body.gatewayRef) && delivery.body.includes('"processing"'));
    expect(lost).toHaveLength(1);
    await sim.replayWebhooks({ last: sim.webhookLog().length - sim.webhookLog().indexOf(lost[0]!), reverse: true });
    expect((await api('GET', `/v1/payments/${created.body.id}`)).body.status).toBe('pending');
  });

  it('a payment its gateway no longer knows answers 409 missing_gateway_ref, is recorded once and read no more', async () => {
    const created = await api('POST', '/v1/payments', validPayment({ method: 'card' }));
    const em = world.service.services.db.fork();
    await em.nativeUpdate(Payment, { id: created.body.id }, { gatewayRef: 'pi_unknown_at_the_gateway' });
    for (let i = 0; i < 2; i++) {
      const reply = await api('POST', `/v1/payments/${created.body.id}/sync`);
      expect(reply.status).toBe(409);
      expect(reply.body).toEqual({ error: 'missing_gateway_ref', message: expect.stringContaining('no longer knows') });
    }
    const stored = await em.fork().findOneOrFail(Payment, { id: created.body.id });
    expect(stored.gatewayMissingAt).toBeInstanceOf(Date);
    expect(stored.reconcileAt).toBeNull();
    expect(world.service.logs().split('\n').filter((line) => line.includes(created.body.id) && line.includes('no longer knows'))).toHaveLength(1);

    // Operators see it, first of the list, and what is still waiting for a read; Prometheus sees the count.
    const waiting = await api('POST', '/v1/payments', validPayment({ method: 'pix' }));
    const status = await world.service.admin.reconciliation.status({ environmentId: world.tenant.environmentId });
    expect(status.items[0]).toMatchObject({ kind: 'payment', id: created.body.id, gatewayRef: 'pi_unknown_at_the_gateway', nextReadAt: null, lostAt: expect.any(String) });
    expect(status.lost).toBe(1);
    expect(status.scheduled).toBeGreaterThanOrEqual(1);
    expect(status.items.find((item) => item.id === waiting.body.id)).toMatchObject({ status: 'pending', lastReadAt: null, reads: 0, nextReadAt: expect.any(String) });
    const scrape = await call(world.service.url, 'GET', '/metrics', { headers: { authorization: `Bearer ${world.service.adminToken}` } });
    expect(scrape.text).toMatch(/^reconciliation_lost_resources 1$/m);
    expect(scrape.text).toMatch(/^reconciliation_overdue_resources \d+$/m);
  });

  it('a create that failed before the gateway made anything: the retry does the work and is no replay', async () => {
    const sim = world.sandbox.sims.gateway_a;
    sim.injectFault('createPayment', { kind: 'server_error' });
    const body = validPayment({ method: 'pix' });
    const failed = await api('POST', '/v1/payments', body);
    expect(failed.status).toBe(502);
    const before = sim.stats().created.payments;
    const retried = await api('POST', '/v1/payments', body);
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(sim.stats().created.payments).toBe(before + 1);
    const again = await api('POST', '/v1/payments', body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(retried.body.id);
  });

  it('a subscription whose create failed is finished by reconciliation, never left without its gateway reference', async () => {
    world.sandbox.sims.gateway_a.injectFault('createSubscription', { kind: 'server_error' });
    const externalId = `sub-failed-${Date.now()}`;
    const failed = await api('POST', '/v1/subscriptions', { amount: 2990, interval: 'monthly', externalId, customer });
    expect(failed.status).toBe(502);
    const read = await readUntil(() => api('GET', `/v1/subscriptions?externalId=${externalId}`), (reply) => reply.status === 200 && reply.body.gatewayRef != null);
    expect(read.body.gatewayRef).toMatch(/^subs_/);
    expect(await eventTypes(read.body.id)).toEqual(['subscription.created']);
    const stored = await world.service.services.db.fork().findOneOrFail(Subscription, { id: read.body.id });
    expect(stored.pendingRequestSealed).toBeNull();
  });
});

describe.runIf(onPostgres)('reconciliation on two nodes', () => {
  it('reads each due resource from its gateway once per step', async () => {
    const database = await createTestDatabase();
    // Passes are run by hand here: one poll at start, then none until the test asks.
    const env = { MASTER_KEY: newMasterKey(), RECONCILIATION_SCHEDULE: '1s,1s', RECONCILIATION_POLL_INTERVAL_MS: '600000' };
    const a = await startTestService({ database, env });
    const b = await startTestService({ database, env });
    const tenant = await createTenant(a);
    const sandbox = await startSandbox(a, tenant.environmentId, { PIX: 'gateway_a' });
    try {
      const sim = sandbox.sims.gateway_a;
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) {
        const reply = await call(i % 2 ? b.url : a.url, 'POST', '/v1/payments', { key: tenant.apiKey, body: validPayment({ method: 'pix' }) });
        expect(reply.status).toBe(201);
        ids.push(reply.body.id);
      }
      for (let step = 0; step < 2; step++) {
        // Every read of this step is due: the latest of the rows' scheduled times has come by the clock a pass reads.
        const due = Math.max(...(await a.services.db.fork().find(Payment, { id: { $in: ids } })).map((payment) => payment.reconcileAt!.getTime()));
        await readUntil(async () => Date.now(), (now) => now > due, 5_000);
        const before = sim.stats().calls.getPayment ?? 0;
        await Promise.all([a.reconciler!.pass(), b.reconciler!.pass(), a.reconciler!.pass(), b.reconciler!.pass()]);
        expect((sim.stats().calls.getPayment ?? 0) - before).toBe(12);
      }
    } finally {
      await sandbox.close();
      await a.stop();
      await b.stop();
      await database.drop();
    }
  });
});
