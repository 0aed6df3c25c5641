import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxEvent } from '../../server/db/entities';
import { Payment } from '../../server/domain/payments/payment';
import type { ContractChecker } from '../support/contract';
import { call } from '../support/http';
import type { Sandbox } from '../support/gateways';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import type { TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';

let service: TestService;
let tenant: TestTenant;
let sandbox: Sandbox;
let contract: ContractChecker;
let world: SandboxedService;

beforeAll(async () => {
  world = await startSandboxedService();
  ({ service, tenant, sandbox, contract } = world);
});
afterAll(() => world?.stop());

const customer = { name: 'Ana Souza', email: 'ana@example.com', document: '529.982.247-25', phone: '11987654321' };
const subscription = (overrides: Record<string, unknown> = {}) => ({
  amount: 2990,
  interval: 'monthly',
  externalId: `sub-${Math.random().toString(36).slice(2)}`,
  customer,
  ...overrides,
});

async function send(method: 'GET' | 'POST', path: string, documented: string, body?: unknown, raw?: { rawBody: string }) {
  const reply = await call(service.url, method, path, { key: tenant.apiKey, body, ...raw });
  contract.expectConforms(method, documented, reply);
  return reply;
}
const create = (overrides: Record<string, unknown> = {}) => send('POST', '/v1/subscriptions', '/v1/subscriptions', subscription(overrides));
const get = (id: string) => send('GET', `/v1/subscriptions/${id}`, '/v1/subscriptions/{id}');
const cancel = (id: string, body?: unknown) => send('POST', `/v1/subscriptions/${id}/cancel`, '/v1/subscriptions/{id}/cancel', body);
const eventsOf = async (id: string) =>
  (await service.services.db.fork().find(OutboxEvent, { resourceId: id }, { orderBy: { sequence: 'asc' } })).map((e) => e.type);

describe('gateway_b: renewals arrive as payments tied to the subscription', () => {
  beforeAll(() => sandbox.route('SUBSCRIPTION', 'gateway_b'));

  it('three renewals → three linked payments and three subscription.renewed; then a failed charge and past due', async () => {
    const created = await create();
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'active', method: 'card', gateway: 'gateway_b', interval: 'monthly', trialDays: 0, trialEndsAt: null, cancelAtPeriodEnd: false, canceledAt: null });
    const id = created.body.id;
    expect(await eventsOf(id)).toEqual(['subscription.created']);

    let previous = created.body.nextBillingAt;
    for (let i = 0; i < 3; i++) {
      await sandbox.sims.gateway_b.renewSubscription(created.body.gatewayRef);
      const renewed = (await get(id)).body;
      expect(renewed.status).toBe('active');
      expect(renewed.nextBillingAt).not.toBe(previous);
      previous = renewed.nextBillingAt;
    }
    const linked = await service.services.db.fork().find(Payment, { subscriptionId: id });
    expect(linked).toHaveLength(3);
    expect(linked.every((p) => p.status === 'paid' && p.method === 'card')).toBe(true);
    expect((await eventsOf(id)).filter((t) => t === 'subscription.renewed')).toHaveLength(3);
    for (const payment of linked) expect(await eventsOf(payment.id)).toEqual(['payment.created', 'payment.paid']);

    await sandbox.sims.gateway_b.failSubscriptionCharge(created.body.gatewayRef);
    await sandbox.sims.gateway_b.markPastDue(created.body.gatewayRef);
    expect((await get(id)).body.status).toBe('past_due');
    expect((await eventsOf(id)).slice(-2)).toEqual(['subscription.payment_failed', 'subscription.past_due']);
  });

  it('cancel at period end keeps the status until the cycle ends, then cancels with its event', async () => {
    const created = (await create()).body;
    const asked = await cancel(created.id, { atPeriodEnd: true });
    expect(asked.status).toBe(200);
    expect(asked.body).toMatchObject({ status: 'active', cancelAtPeriodEnd: true, canceledAt: null });
    expect(await eventsOf(created.id)).toEqual(['subscription.created']);
    await sandbox.sims.gateway_b.renewSubscription(created.gatewayRef);
    const ended = (await get(created.id)).body;
    expect(ended.status).toBe('canceled');
    expect(ended.canceledAt).toEqual(expect.any(String));
    expect(await eventsOf(created.id)).toEqual(['subscription.created', 'subscription.canceled']);
  });

  it('duplicate charge webhooks apply once', async () => {
    const created = (await create()).body;
    await sandbox.sims.gateway_b.renewSubscription(created.gatewayRef);
    await sandbox.sims.gateway_b.replayWebhooks({ last: 2 });
    await sandbox.sims.gateway_b.replayWebhooks({ last: 2, reverse: true });
    expect(await service.services.db.fork().count(Payment, { subscriptionId: created.id })).toBe(1);
    expect((await eventsOf(created.id)).filter((t) => t === 'subscription.renewed')).toHaveLength(1);
  });
});

describe('gateway_c: a checkout link becomes a subscription', () => {
  beforeAll(() => sandbox.route('SUBSCRIPTION', 'gateway_c'));

  it('needs a plan id and a phone', async () => {
    const noPlan = await create();
    expect(noPlan.status).toBe(400);
    expect(noPlan.body.issues).toEqual([{ path: ['gateway', 'gateway_c', 'planId'], message: expect.any(String) }]);
    const noPhone = await create({ customer: { ...customer, phone: undefined }, gateway: { gateway_c: { planId: 'plan_monthly_basic' } } });
    expect(noPhone.body.issues).toEqual([{ path: ['customer', 'phone'], message: expect.any(String) }]);
  });

  it('pl_ ref and checkoutUrl, no subscription.created until checkout completes; then renewals, failures and cancel', async () => {
    const created = (await create({ gateway: { gateway_c: { planId: 'plan_monthly_basic' } } })).body;
    expect(created.gatewayRef).toMatch(/^pl_/);
    expect(created.checkoutUrl).toMatch(/^http/);
    expect(await eventsOf(created.id)).toEqual([]);

    // Canceling before checkout is covered in gateway-c-checkout-and-plans.test.ts; there is no period to end yet.
    const atEnd = await cancel(created.id, { atPeriodEnd: true });
    expect(atEnd.status).toBe(400);
    expect(atEnd.body.issues[0].path).toEqual(['atPeriodEnd']);

    await sandbox.sims.gateway_c.completeCheckout(created.gatewayRef);
    const live = (await get(created.id)).body;
    expect(live.gatewayRef).toMatch(/^sub_/);
    expect(await eventsOf(created.id)).toEqual(['subscription.created']);

    await sandbox.sims.gateway_c.renewSubscription(live.gatewayRef);
    await sandbox.sims.gateway_c.failSubscriptionCharge(live.gatewayRef);
    expect((await eventsOf(created.id)).slice(1)).toEqual(['subscription.renewed', 'subscription.payment_failed']);
    expect(await service.services.db.fork().count(Payment, { subscriptionId: created.id })).toBe(2);

    const canceled = await cancel(created.id);
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ status: 'canceled', canceledAt: expect.any(String) });
    const again = await cancel(created.id);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: 'already_canceled', message: expect.any(String), status: 'canceled' });
    expect((await eventsOf(created.id)).at(-1)).toBe('subscription.canceled');
  });
});

describe('gateway_a: trials and immediate cancel', () => {
  beforeAll(() => sandbox.route('SUBSCRIPTION', 'gateway_a'));

  it('trialing with trialEndsAt, active when the trial ends, canceled at once', async () => {
    const created = (await create({ trialDays: 7, interval: 'YEARLY' })).body;
    expect(created).toMatchObject({ status: 'trialing', trialDays: 7, interval: 'yearly', trialEndsAt: expect.any(String) });
    await sandbox.sims.gateway_a.endTrial(created.gatewayRef);
    expect((await get(created.id)).body.status).toBe('active');
    const atEnd = await cancel(created.id, { atPeriodEnd: true });
    expect(atEnd.status).toBe(400);
    expect(atEnd.body.issues[0].path).toEqual(['atPeriodEnd']);
    const canceled = await cancel(created.id);
    expect(canceled.body.status).toBe('canceled');
    expect(await eventsOf(created.id)).toEqual(['subscription.created', 'subscription.canceled']);
  });

  it('cancel with no body, an empty body, or {} means immediately; a string flag is refused', async () => {
    const bodies = [undefined, {}];
    for (const body of bodies) {
      const created = (await create()).body;
      expect((await cancel(created.id, body)).body.status).toBe('canceled');
    }
    const created = (await create()).body;
    const refused = await cancel(created.id, { atPeriodEnd: 'false' });
    expect(refused.status).toBe(400);
    expect(refused.body.issues[0].path).toEqual(['atPeriodEnd']);
  });
});

describe('idempotency and reads', () => {
  beforeAll(() => sandbox.route('SUBSCRIPTION', 'gateway_b'));

  it('20 concurrent creates with one externalId make one subscription at the gateway', async () => {
    const before = sandbox.sims.gateway_b.stats().created.subscriptions;
    const body = subscription({ externalId: 'sub-race' });
    const replies = await Promise.all(Array.from({ length: 20 }, () => call(service.url, 'POST', '/v1/subscriptions', { key: tenant.apiKey, body })));
    expect(replies.every((r) => r.status === 201)).toBe(true);
    expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
    expect(sandbox.sims.gateway_b.stats().created.subscriptions - before).toBe(1);
  });

  it('created at the gateway but the answer was lost: 502, then the retry answers the same subscription (one at the gateway)', async () => {
    const before = sandbox.sims.gateway_b.stats().created.subscriptions;
    sandbox.sims.gateway_b.injectFault('createSubscription', { kind: 'drop_response' });
    const body = subscription({ externalId: 'sub-lost-answer' });
    const failed = await create(body);
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ error: 'gateway_error', provider: 'gateway_b' });
    const retried = await create(body);
    expect(retried.status).toBe(201);
    expect(retried.body.gatewayRef).toEqual(expect.any(String));
    expect(sandbox.sims.gateway_b.stats().created.subscriptions - before).toBe(1);
    expect(await eventsOf(retried.body.id)).toEqual(['subscription.created']);
  });

  it('by id and externalId; malformed ids are not found; another environment sees nothing', async () => {
    const created = (await create({ externalId: 'sub-read' })).body;
    expect((await get(created.id)).body).toEqual(created);
    expect((await send('GET', '/v1/subscriptions?externalId=sub-read', '/v1/subscriptions')).body).toEqual(created);
    expect((await send('GET', '/v1/subscriptions', '/v1/subscriptions')).body.error).toBe('missing_query');
    for (const id of ['pay_000000000000000000000000', 'nope', 'sub_000000000000000000000000']) {
      const reply = await get(id);
      expect(reply.status).toBe(404);
      expect(reply.body.error).toBe('not_found');
    }
    const other = await createTenant(service);
    expect((await call(service.url, 'GET', `/v1/subscriptions/${created.id}`, { key: other.apiKey })).status).toBe(404);
    expect((await call(service.url, 'POST', `/v1/subscriptions/${created.id}/cancel`, { key: other.apiKey })).status).toBe(404);
  });
});
