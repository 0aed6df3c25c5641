/**
 * Routing that survives a gateway outage (decision 21), against the three
 * simulators over real sockets: ordered fallback on creates, the circuit
 * breaker and its probe, orphans of abandoned attempts, and idempotency across
 * the fallback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxEvent } from '../../server/db/entities';
import { gatewayIdempotencyKey } from '../../server/domain/registration/idempotency';
import { Payment } from '../../server/domain/payments/payment';
import { registry } from '../../server/observability/metrics';
import { call, validPayment } from '../support/http';
import { eventually } from '../support/outbox-events';
import { startSandbox, type Sandbox } from '../support/gateways';
import { startTestService, type TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';

const COOLDOWN_MS = 3_000;
// Generous: on a busy machine the simulators' Pix codes take a while; the timeout case waits twice as long.
const TIMEOUT_MS = 5_000;

let service: TestService;

beforeAll(async () => {
  service = await startTestService({
    // A health window longer than any test here, so the counts it shows are every create's, however slow the machine.
    env: { ROUTING_BREAKER_COOLDOWN_MS: String(COOLDOWN_MS), ROUTING_BREAKER_WINDOW_MS: '600000', GATEWAY_TIMEOUT_MS: String(TIMEOUT_MS), RATE_LIMIT_PAYMENTS_CREATE: '100000' },
  });
}, 180_000);
afterAll(() => service?.stop());

interface World {
  tenant: TestTenant;
  sandbox: Sandbox;
  create(overrides?: Record<string, unknown>): ReturnType<typeof call>;
  trace(paymentId: string): Promise<Awaited<ReturnType<TestService['admin']['payments']['trace']>>>;
}

async function world(rules: Parameters<TestService['admin']['routing']['set']>[0][]): Promise<World> {
  const tenant = await createTenant(service);
  const sandbox = await startSandbox(service, tenant.environmentId);
  for (const rule of rules) await service.admin.routing.set({ ...rule, environmentId: tenant.environmentId });
  return {
    tenant,
    sandbox,
    create: (overrides = {}) => call(service.url, 'POST', '/v1/payments', { key: tenant.apiKey, body: validPayment(overrides) }),
    trace: (paymentId) => service.admin.payments.trace({ environmentId: tenant.environmentId, paymentId }),
  };
}

/** Runs `count` jobs, `width` at a time. */
async function inBatches<T>(count: number, width: number, job: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let start = 0; start < count; start += width) {
    results.push(...(await Promise.all(Array.from({ length: Math.min(width, count - start) }, (_, i) => job(start + i)))));
  }
  return results;
}

const eventsOf = async (id: string) => (await service.services.db.fork().find(OutboxEvent, { resourceId: id }, { orderBy: { sequence: 'asc' } })).map((e) => e.type);

describe('gateway_a down for PIX with the rule [gateway_a, gateway_b]', () => {
  let w: World;
  beforeAll(async () => {
    w = await world([{ environmentId: '', method: 'PIX', gateways: [{ gateway: 'gateway_a' }, { gateway: 'gateway_b' }] }]);
  });
  afterAll(() => w?.sandbox.close());

  it('100 creates all succeed on gateway_b with their trace; after the cool-down and recovery, creates return to gateway_a', async () => {
    w.sandbox.sims.gateway_a.injectFault('createPayment', { kind: 'server_error', status: 503 }, 100_000);
    const started = Date.now();
    const replies = await inBatches(100, 5, () => w.create());
    const elapsed = Date.now() - started;
    expect(replies.map((r) => r.status)).toEqual(Array(100).fill(201));
    expect(new Set(replies.map((r) => r.body.gateway))).toEqual(new Set(['gateway_b']));
    // The breaker opened after 5 failures in a row (a batch of 5 was under way), and then let one probe through per
    // cool-down: the rest were not sent to gateway_a at all.
    const callsAtA = w.sandbox.sims.gateway_a.stats().calls.createPayment ?? 0;
    expect(callsAtA).toBeGreaterThanOrEqual(5);
    expect(callsAtA).toBeLessThanOrEqual(10 + Math.ceil(elapsed / COOLDOWN_MS));

    const traces = await Promise.all(replies.map((r) => w.trace(r.body.id)));
    for (const trace of traces) {
      expect(trace.gateway).toBe('gateway_b');
      expect(trace.chosen).toBe('gateway_b');
      expect(trace.rule).toEqual([{ gateway: 'gateway_a', weight: null }, { gateway: 'gateway_b', weight: null }]);
      expect(trace.attempts).toHaveLength(2);
      expect(trace.attempts[0]).toMatchObject({ gateway: 'gateway_a', outcome: expect.stringMatching(/^(unavailable|skipped)$/) });
      expect(trace.attempts[1]).toMatchObject({ gateway: 'gateway_b', outcome: 'succeeded', startedAt: expect.any(String), durationMs: expect.any(Number) });
    }
    expect(traces.filter((t) => t.attempts[0]!.outcome === 'unavailable')).toHaveLength(callsAtA);
    expect(traces.filter((t) => t.attempts[0]!.outcome === 'skipped')).toHaveLength(100 - callsAtA);
    const unavailable = traces.find((t) => t.attempts[0]!.outcome === 'unavailable')!;
    expect(unavailable.attempts[0]!.detail).toBe('answered 503');

    // Counted for Prometheus: the creates moved on, and the breaker opening.
    expect(await registry.getSingleMetricAsString('routing_fallbacks_total')).toMatch(/routing_fallbacks_total\{method="PIX",from="gateway_a",reason="skipped"\} [1-9]\d*/);
    expect(await registry.getSingleMetricAsString('routing_breaker_transitions_total')).toMatch(/routing_breaker_transitions_total\{gateway="gateway_a",state="open"\} [1-9]/);

    const health = await service.admin.routing.health({ environmentId: w.tenant.environmentId });
    const a = health.find((h) => h.gateway === 'gateway_a')!;
    // Open, or half-open when a cool-down just ended (the creates take a while on a busy machine).
    expect(a).toMatchObject({ state: expect.stringMatching(/^(open|half_open)$/), failures: callsAtA, openUntil: expect.any(String), lastFailureAt: expect.any(String) });
    expect(health.find((h) => h.gateway === 'gateway_b')).toMatchObject({ state: 'closed', successes: 100, failures: 0 });
    const explained = await service.admin.routing.explain({ environmentId: w.tenant.environmentId, method: 'PIX' });
    expect(explained.candidates.map((c) => c.gateway)).toEqual(['gateway_a', 'gateway_b']);
    expect(explained.candidates[1]!.state).toBe('available');
    expect(explained.chosen).toBe(explained.candidates[0]!.state === 'open' ? 'gateway_b' : 'gateway_a');

    // Recovery: gateway_a answers again; once the cool-down is over, one create probes it and closes the breaker.
    w.sandbox.sims.gateway_a.clearFaults();
    const stateOfA = async () => (await service.admin.routing.health({ environmentId: w.tenant.environmentId })).find((h) => h.gateway === 'gateway_a')!.state;
    await eventually(async () => (await stateOfA()) === 'half_open', COOLDOWN_MS + 15_000, 'the cool-down of gateway_a to end');
    const probe = await w.create();
    expect(probe.status).toBe(201);
    expect(probe.body.gateway).toBe('gateway_a');
    const after = await inBatches(10, 5, () => w.create());
    expect(after.map((r) => r.body.gateway)).toEqual(Array(10).fill('gateway_a'));
    expect((await w.trace(after[0]!.body.id)).attempts).toEqual([expect.objectContaining({ gateway: 'gateway_a', outcome: 'succeeded', detail: null })]);
    expect((await service.admin.routing.health({ environmentId: w.tenant.environmentId })).find((h) => h.gateway === 'gateway_a')).toMatchObject({ state: 'closed', openUntil: null });
   }, 240_000);

  it('50 racing creates of one externalId while the primary fails → one payment, one live Pix code', async () => {
    w.sandbox.sims.gateway_a.injectFault('createPayment', { kind: 'server_error' }, 100_000);
    const body = validPayment();
    const createdAtB = w.sandbox.sims.gateway_b.stats().created.payments;
    const replies = await Promise.all(Array.from({ length: 50 }, () => call(service.url, 'POST', '/v1/payments', { key: w.tenant.apiKey, body })));
    expect(replies.map((r) => r.status)).toEqual(Array(50).fill(201));
    // One request made it; the other 49 answered its payment (Idempotent-Replayed).
    expect(replies.filter((r) => r.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
    expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
    expect(new Set(replies.map((r) => r.body.pix?.qrCodeText ?? r.body.gatewayRef)).size).toBe(1);
    expect(await service.services.db.fork().count(Payment, { environment: w.tenant.environmentId, externalId: body.externalId })).toBe(1);
    expect(w.sandbox.sims.gateway_b.stats().created.payments - createdAtB).toBe(1);
    // A retry after the fallback landed answers the stored payment, from gateway_b, without calling anything.
    const retry = await call(service.url, 'POST', '/v1/payments', { key: w.tenant.apiKey, body });
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toMatchObject({ id: replies[0]!.body.id, gateway: 'gateway_b' });
    expect(w.sandbox.sims.gateway_b.stats().created.payments - createdAtB).toBe(1);
    w.sandbox.sims.gateway_a.clearFaults();
   }, 120_000);
});

describe('a refusal', () => {
  it('(4xx validation) at the primary does not fall back', async () => {
    const w = await world([{ environmentId: '', method: 'CARD', gateways: [{ gateway: 'gateway_a' }, { gateway: 'gateway_b' }] }]);
    w.sandbox.sims.gateway_a.injectFault('createPayment', { kind: 'validation' });
    const refused = await w.create({ method: 'card', card: { installments: 2 } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_input');
    expect(w.sandbox.sims.gateway_b.stats().calls.createPayment ?? 0).toBe(0);
    // The gateway answered: that is no outage, so its health counts a success.
    expect((await service.admin.routing.health({ environmentId: w.tenant.environmentId })).find((h) => h.gateway === 'gateway_a')).toMatchObject({ successes: 1, failures: 0, state: 'closed' });
    await w.sandbox.close();
  });
});

describe('a primary that times out after creating the charge', () => {
  let w: World;
  beforeAll(async () => {
    w = await world([
      { environmentId: '', method: 'PIX', gateways: [{ gateway: 'gateway_a' }, { gateway: 'gateway_b' }] },
      { environmentId: '', method: 'CARD', gateways: [{ gateway: 'gateway_a' }, { gateway: 'gateway_b' }] },
    ]);
  });
  afterAll(() => w?.sandbox.close());

  /** The orphan gateway_a made for this externalId, found by the same idempotency key (the gateway answers what it made). */
  async function orphanAtA(externalId: string, request: { amount: number; method: 'pix' | 'card' }) {
    const route = await service.services.gateways.forExisting(service.services.db.fork(), w.tenant.environmentId, 'gateway_a');
    return route.adapter.createPayment({
      idempotencyKey: gatewayIdempotencyKey('payment', w.tenant.environmentId, externalId),
      amount: request.amount,
      method: request.method,
      customer: { name: 'Maria Silva', email: 'maria@example.com', document: '12345678909' },
    });
  }

  it('Pix: the payment is on gateway_b, the orphan at gateway_a is left to expire, and its later webhooks change nothing', async () => {
    const createdAtA = w.sandbox.sims.gateway_a.stats().created.payments;
    w.sandbox.sims.gateway_a.injectFault('createPayment', { kind: 'late_response', ms: TIMEOUT_MS * 2 });
    const reply = await w.create();
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ gateway: 'gateway_b', status: 'pending' });
    // The charge exists at gateway_a: the timeout came after it was made.
    expect(w.sandbox.sims.gateway_a.stats().created.payments).toBe(createdAtA + 1);
    const trace = await w.trace(reply.body.id);
    expect(trace.attempts.map((a) => [a.gateway, a.outcome])).toEqual([['gateway_a', 'timeout'], ['gateway_b', 'succeeded']]);
    expect(trace.attempts[0]).toMatchObject({ orphan: 'left_to_expire', detail: 'no answer in time' });
    expect(trace.attempts[0]!.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);

    const orphan = await orphanAtA(reply.body.externalId, { amount: 1990, method: 'pix' });
    expect(orphan.gatewayRef).not.toBe(reply.body.gatewayRef);
    expect(w.sandbox.sims.gateway_a.stats().created.payments).toBe(createdAtA + 1);
    const before = await eventsOf(reply.body.id);
    await w.sandbox.sims.gateway_a.payPayment(orphan.gatewayRef);
    await w.sandbox.sims.gateway_a.flushWebhooks();
    const delivered = w.sandbox.sims.gateway_a.webhookLog().filter((d) => d.body.includes(orphan.gatewayRef));
    expect(delivered.length).toBeGreaterThan(0);
    const read = await call(service.url, 'GET', `/v1/payments/${reply.body.id}`, { key: w.tenant.apiKey });
    expect(read.body).toMatchObject({ status: 'pending', gateway: 'gateway_b', gatewayRef: reply.body.gatewayRef });
    // A sync reads the payment's own gateway and reference, never the abandoned one.
    const synced = await call(service.url, 'POST', `/v1/payments/${reply.body.id}/sync`, { key: w.tenant.apiKey });
    expect(synced.body).toMatchObject({ status: 'pending', gateway: 'gateway_b' });
    expect(await eventsOf(reply.body.id)).toEqual(before);
  });

  it('card: the payment is on gateway_b, the orphan is canceled at gateway_a, and its later webhooks change nothing', async () => {
    w.sandbox.sims.gateway_a.injectFault('createPayment', { kind: 'drop_response' });
    const reply = await w.create({ method: 'card', card: { installments: 1 } });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ gateway: 'gateway_b', checkoutUrl: expect.any(String) });
    expect((await w.trace(reply.body.id)).attempts[0]).toMatchObject({ gateway: 'gateway_a', outcome: 'unavailable', orphan: expect.stringMatching(/^(cancel_pending|canceled)$/) });
    // The orphan is found again by its idempotency key and canceled, off the request's path.
    const attempt = await eventually(async () => {
      const first = (await w.trace(reply.body.id)).attempts[0]!;
      return first.orphan === 'canceled' ? first : undefined;
    }, 15_000, 'the orphan canceled');
    expect(attempt).toMatchObject({ orphan: 'canceled', orphanRef: expect.any(String) });
    const route = await service.services.gateways.forExisting(service.services.db.fork(), w.tenant.environmentId, 'gateway_a');
    expect((await route.adapter.getPayment(attempt.orphanRef!)).status).toBe('canceled');

    const before = await eventsOf(reply.body.id);
    await w.sandbox.sims.gateway_a.setPaymentStatus(attempt.orphanRef!, 'succeeded');
    await w.sandbox.sims.gateway_a.flushWebhooks();
    expect(w.sandbox.sims.gateway_a.webhookLog().some((d) => d.body.includes(attempt.orphanRef!))).toBe(true);
    const read = await call(service.url, 'GET', `/v1/payments/${reply.body.id}`, { key: w.tenant.apiKey });
    expect(read.body).toMatchObject({ status: 'pending', gateway: 'gateway_b', gatewayRef: reply.body.gatewayRef });
    expect(await eventsOf(reply.body.id)).toEqual(before);
  });
});

describe('every gateway of the rule failing', () => {
  it('answers 502; the retry completes at the gateway the create last tried, with the same key, and never elsewhere', async () => {
    const w = await world([{ environmentId: '', method: 'CARD', gateways: [{ gateway: 'gateway_a' }, { gateway: 'gateway_b' }] }]);
    w.sandbox.sims.gateway_a.injectFault('createPayment', { kind: 'server_error' });
    w.sandbox.sims.gateway_b.injectFault('createPayment', { kind: 'drop_response' });
    const body = validPayment({ method: 'card', card: { installments: 1 } });
    const failed = await call(service.url, 'POST', '/v1/payments', { key: w.tenant.apiKey, body });
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ error: 'gateway_error', provider: 'gateway_b' });
    // gateway_b made the charge before the answer was lost: the retry finds it there by the same idempotency key.
    expect(w.sandbox.sims.gateway_b.stats().created.payments).toBe(1);
    const retry = await call(service.url, 'POST', '/v1/payments', { key: w.tenant.apiKey, body });
    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({ gateway: 'gateway_b', status: 'pending' });
    expect(w.sandbox.sims.gateway_b.stats().created.payments).toBe(1);
    const trace = await w.trace(retry.body.id);
    expect(trace.attempts.map((a) => [a.gateway, a.outcome])).toEqual([
      ['gateway_a', 'unavailable'],
      ['gateway_b', 'unavailable'],
      ['gateway_b', 'succeeded'],
    ]);
    // What gateway_a may have made is abandoned for good; the attempt at gateway_b, where the create was completed, is not an orphan.
    expect(trace.attempts[0]!.orphan).toMatch(/^(cancel_pending|canceled)$/);
    expect(trace.attempts[1]!.orphan).toBeUndefined();
    await w.sandbox.close();
  }, 120_000);
});

describe('subscriptions fall back too', () => {
  it('gateway_a failing: the subscription is created at gateway_b with its trace', async () => {
    const w = await world([{ environmentId: '', method: 'SUBSCRIPTION', gateways: [{ gateway: 'gateway_a' }, { gateway: 'gateway_b' }] }]);
    w.sandbox.sims.gateway_a.injectFault('createSubscription', { kind: 'server_error' });
    const reply = await call(service.url, 'POST', '/v1/subscriptions', {
      key: w.tenant.apiKey,
      body: { amount: 2990, interval: 'monthly', externalId: `sub-${Math.random().toString(36).slice(2)}`, customer: { name: 'Ana Souza', email: 'ana@example.com', document: '529.982.247-25', phone: '11987654321' } },
    });
    expect(reply.status).toBe(201);
    expect(reply.body.gateway).toBe('gateway_b');
    const trace = await service.admin.subscriptions.trace({ environmentId: w.tenant.environmentId, subscriptionId: reply.body.id });
    expect(trace.attempts.map((a) => [a.gateway, a.outcome])).toEqual([['gateway_a', 'unavailable'], ['gateway_b', 'succeeded']]);
    const detail = await service.admin.subscriptions.get({ subscriptionId: reply.body.id });
    expect(detail.routingTrace.chosen).toBe('gateway_b');
    await w.sandbox.close();
  });

  it('gateway_c made the checkout link but the answer was lost: the subscription is at gateway_b and the link is deactivated', async () => {
    const w = await world([{ environmentId: '', method: 'SUBSCRIPTION', gateways: [{ gateway: 'gateway_c' }, { gateway: 'gateway_b' }] }]);
    w.sandbox.sims.gateway_c.injectFault('createSubscription', { kind: 'drop_response' });
    const reply = await call(service.url, 'POST', '/v1/subscriptions', {
      key: w.tenant.apiKey,
      body: {
        amount: 2990,
        interval: 'monthly',
        externalId: `sub-${Math.random().toString(36).slice(2)}`,
        customer: { name: 'Ana Souza', email: 'ana@example.com', document: '529.982.247-25', phone: '11987654321' },
        gateway: { gateway_c: { planId: 'plan_monthly_basic' } },
      },
    });
    expect(reply.status).toBe(201);
    expect(reply.body.gateway).toBe('gateway_b');
    expect(w.sandbox.sims.gateway_c.stats().created.subscriptions).toBe(1);
    const trace = async () => (await service.admin.subscriptions.trace({ environmentId: w.tenant.environmentId, subscriptionId: reply.body.id })).attempts;
    const orphan = await eventually(async () => {
      const first = (await trace())[0]!;
      return first.orphan === 'canceled' ? first : undefined;
    }, 15_000, 'the orphan canceled');
    expect(orphan).toMatchObject({ gateway: 'gateway_c', outcome: 'unavailable', orphan: 'canceled', orphanRef: expect.stringMatching(/^pl_/) });
    const route = await service.services.gateways.forExisting(service.services.db.fork(), w.tenant.environmentId, 'gateway_c');
    expect((await route.adapter.getSubscription(orphan.orphanRef!)).status).toBe('canceled');
    await w.sandbox.close();
  }, 120_000);
});
