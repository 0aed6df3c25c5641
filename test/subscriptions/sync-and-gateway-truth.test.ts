/**
 * What a merchant reads about a subscription is what its gateway says:
 * `subscription.created` carries the state the gateway confirmed, a cancel
 * that took effect bills nothing more, `POST /v1/subscriptions/{id}/sync`
 * picks up what a lost notification would have said (and completes a
 * gateway_c checkout) and any move among unfinished statuses (active back
 * to trialing), and a notification older than what a sync read changes
 * nothing, judged at the resolution of the gateway's clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayName } from '../../server/contract/enums';
import { OutboxEvent } from '../../server/db/entities';
import { Subscription } from '../../server/domain/subscriptions/subscription';
import type { ContractChecker } from '../support/contract';
import type { Sandbox } from '../support/gateways';
import { call } from '../support/http';
import { eventually } from '../support/outbox-events';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import type { TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';
import { lastEventSecond, nextWholeSecond, withinOneSecond } from '../support/whole-seconds';

let service: TestService;
let tenant: TestTenant;
let sandbox: Sandbox;
let contract: ContractChecker;
let world: SandboxedService;

beforeAll(async () => {
  world = await startSandboxedService();
  ({ service, tenant, sandbox, contract } = world);
  // This file syncs more than 10 times a minute with its key; the limit itself is tested with keys of their own.
  await service.admin.apiKeys.setRateLimits({ apiKeyId: tenant.apiKeyId, limits: { payments_sync: 1000 } });
});
afterAll(() => world?.stop());

const customer = { name: 'Ana Souza', email: 'ana@example.com', document: '529.982.247-25', phone: '11987654321' };
const TRIAL_PLAN = { gateway_c: { planId: 'plan_monthly_trial' } };

async function send(method: 'GET' | 'POST', path: string, documented: string, body?: unknown, key = tenant.apiKey) {
  const reply = await call(service.url, method, path, { key, body });
  contract.expectConforms(method, documented, reply);
  return reply;
}
const create = (overrides: Record<string, unknown> = {}) =>
  send('POST', '/v1/subscriptions', '/v1/subscriptions', { amount: 2990, interval: 'monthly', externalId: `sub-${Math.random().toString(36).slice(2)}`, customer, ...overrides });
const get = (id: string) => send('GET', `/v1/subscriptions/${id}`, '/v1/subscriptions/{id}');
const cancel = (id: string, body?: unknown) => send('POST', `/v1/subscriptions/${id}/cancel`, '/v1/subscriptions/{id}/cancel', body);
const sync = (id: string, key?: string) => send('POST', `/v1/subscriptions/${id}/sync`, '/v1/subscriptions/{id}/sync', undefined, key);
const events = async (id: string) =>
  (await service.services.db.fork().find(OutboxEvent, { resourceId: id }, { orderBy: { sequence: 'asc' } })).map((e) => ({ type: e.type, data: e.data as Record<string, unknown> }));
const eventTypes = async (id: string) => (await events(id)).map((e) => e.type);

/** The gateway's notifications are recorded but never reach the service (a lost webhook), until `restore`. */
function loseWebhooks(gateway: GatewayName) {
  sandbox.sims[gateway].setWebhookUrl(null);
  return {
    async restore() {
      const account = (await service.admin.gateways.list({ environmentId: tenant.environmentId })).find((a) => a.gateway === gateway)!;
      sandbox.sims[gateway].setWebhookUrl(account.webhookUrl);
    },
  };
}

describe('subscription.created carries the confirmed state', () => {
  beforeAll(() => sandbox.route('SUBSCRIPTION', 'gateway_c'));

  it('gateway_c: announced when checkout completes, with the trial the gateway set up', async () => {
    const created = (await create({ gateway: TRIAL_PLAN })).body;
    await sandbox.sims.gateway_c.completeCheckout(created.gatewayRef);
    const live = (await get(created.id)).body;
    expect(live).toMatchObject({ status: 'trialing', gatewayRef: expect.stringMatching(/^sub_/) });
    const [announced, ...rest] = await events(created.id);
    expect(rest).toEqual([]);
    expect(announced).toMatchObject({ type: 'subscription.created', data: { status: 'trialing', gatewayRef: live.gatewayRef, trialEndsAt: live.trialEndsAt, nextBillingAt: live.nextBillingAt } });
  });

  it('a checkout found completed by a sync after the trial already ended is announced active, with no silent move', async () => {
    const created = (await create({ gateway: TRIAL_PLAN })).body;
    expect(created.status).toBe('trialing');
    const lost = loseWebhooks('gateway_c');
    try {
      const { subscriptionRef } = await sandbox.sims.gateway_c.completeCheckout(created.gatewayRef);
      await sandbox.sims.gateway_c.endTrial(subscriptionRef);
      expect((await get(created.id)).body).toMatchObject({ status: 'trialing', gatewayRef: created.gatewayRef });

      const synced = await sync(created.id);
      expect(synced.status).toBe(200);
      expect(synced.body).toMatchObject({ status: 'active', gatewayRef: subscriptionRef, checkoutUrl: created.checkoutUrl });
      const all = await events(created.id);
      expect(all).toEqual([{ type: 'subscription.created', data: expect.objectContaining({ status: 'active', gatewayRef: subscriptionRef }) }]);
    } finally {
      await lost.restore();
    }
  });

  it('a checkout completed in the moment of its cancel, its notification lost: sync cancels the gateway subscription that appeared', async () => {
    const created = (await create({ gateway: { gateway_c: { planId: 'plan_monthly_basic' } } })).body;
    await sandbox.sims.gateway_c.raceNextDeactivation(created.gatewayRef);
    const lost = loseWebhooks('gateway_c');
    try {
      expect((await cancel(created.id)).body).toMatchObject({ status: 'canceled', gatewayRef: created.gatewayRef });
      const synced = (await sync(created.id)).body;
      expect(synced).toMatchObject({ status: 'canceled', gatewayRef: expect.stringMatching(/^sub_/), nextBillingAt: null });
      // Canceled at the gateway: it can never charge the customer.
      await expect(sandbox.sims.gateway_c.renewSubscription(synced.gatewayRef)).rejects.toThrow();
      expect(await eventTypes(created.id)).toEqual(['subscription.canceled']);
    } finally {
      await lost.restore();
    }
  });

  it('a checkout not completed yet: sync changes nothing and announces nothing', async () => {
    const created = (await create({ gateway: { gateway_c: { planId: 'plan_monthly_basic' } } })).body;
    const synced = await sync(created.id);
    expect(synced.status).toBe(200);
    expect(synced.body).toMatchObject({ status: 'active', gatewayRef: created.gatewayRef, checkoutUrl: created.checkoutUrl, updatedAt: expect.any(String) });
    expect(await eventTypes(created.id)).toEqual([]);
  });
});

describe('a cancel that took effect bills nothing more: nextBillingAt is null', () => {
  it('gateway_a: immediate cancel', async () => {
    await sandbox.route('SUBSCRIPTION', 'gateway_a');
    const created = (await create()).body;
    expect(created.nextBillingAt).toEqual(expect.any(String));
    const canceled = (await cancel(created.id)).body;
    expect(canceled).toMatchObject({ status: 'canceled', canceledAt: expect.any(String), nextBillingAt: null });
    expect((await events(created.id)).at(-1)).toMatchObject({ type: 'subscription.canceled', data: { nextBillingAt: null } });
  });

  it('gateway_b: at period end, the date stays until the cancel takes effect', async () => {
    await sandbox.route('SUBSCRIPTION', 'gateway_b');
    const created = (await create()).body;
    const asked = (await cancel(created.id, { atPeriodEnd: true })).body;
    expect(asked).toMatchObject({ status: 'active', cancelAtPeriodEnd: true, nextBillingAt: expect.any(String) });
    await sandbox.sims.gateway_b.renewSubscription(created.gatewayRef);
    const ended = (await get(created.id)).body;
    expect(ended).toMatchObject({ status: 'canceled', canceledAt: expect.any(String), nextBillingAt: null });
    expect((await events(created.id)).at(-1)).toMatchObject({ type: 'subscription.canceled', data: { nextBillingAt: null } });
  });

  it('gateway_c: a cancel the gateway reports', async () => {
    await sandbox.route('SUBSCRIPTION', 'gateway_c');
    const created = (await create({ gateway: { gateway_c: { planId: 'plan_monthly_basic' } } })).body;
    const { subscriptionRef } = await sandbox.sims.gateway_c.completeCheckout(created.gatewayRef);
    expect((await get(created.id)).body.nextBillingAt).toEqual(expect.any(String));
    await sandbox.sims.gateway_c.setSubscriptionStatus(subscriptionRef, 'canceled');
    expect((await get(created.id)).body).toMatchObject({ status: 'canceled', nextBillingAt: null });
  });

  it('a subscription canceled before this rule existed reads without its stale date too', async () => {
    await sandbox.route('SUBSCRIPTION', 'gateway_a');
    const created = (await create()).body;
    await cancel(created.id);
    await service.services.db.fork().nativeUpdate(Subscription, { id: created.id }, { nextBillingAt: new Date(Date.now() + 30 * 86_400_000) });
    expect((await get(created.id)).body).toMatchObject({ status: 'canceled', nextBillingAt: null });
  });
});

describe('POST /v1/subscriptions/{id}/sync', () => {
  it('picks up a past_due whose notification never arrived, and sends subscription.past_due', async () => {
    await sandbox.route('SUBSCRIPTION', 'gateway_b');
    const created = (await create()).body;
    const lost = loseWebhooks('gateway_b');
    try {
      await sandbox.sims.gateway_b.markPastDue(created.gatewayRef);
      expect((await get(created.id)).body.status).toBe('active');
      const synced = await sync(created.id);
      expect(synced.status).toBe(200);
      expect(synced.body).toMatchObject({ id: created.id, status: 'past_due' });
      expect(Date.parse(synced.body.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));
      expect((await get(created.id)).body).toEqual(synced.body);
      expect(await eventTypes(created.id)).toEqual(['subscription.created', 'subscription.past_due']);
      // Nothing new at the gateway: a second sync changes nothing and sends nothing.
      expect((await sync(created.id)).body.status).toBe('past_due');
      expect(await eventTypes(created.id)).toEqual(['subscription.created', 'subscription.past_due']);
    } finally {
      await lost.restore();
    }
  });

  it('applies a backward move the gateway reports (active back to trialing), which sends no event; canceled stays final', async () => {
    await sandbox.route('SUBSCRIPTION', 'gateway_a');
    const created = (await create()).body;
    expect(created.status).toBe('active');
    const lost = loseWebhooks('gateway_a');
    try {
      await sandbox.sims.gateway_a.setSubscriptionStatus(created.gatewayRef, 'trialing');
      expect((await get(created.id)).body.status).toBe('active');
      const synced = await sync(created.id);
      expect(synced.status).toBe(200);
      expect(synced.body).toMatchObject({ id: created.id, status: 'trialing' });
      expect((await get(created.id)).body).toEqual(synced.body);
      // The contract has no event for entering trialing or active (section 6.5): the move is read from the resource.
      expect(await eventTypes(created.id)).toEqual(['subscription.created']);

      await sandbox.sims.gateway_a.setSubscriptionStatus(created.gatewayRef, 'past_due');
      expect((await sync(created.id)).body.status).toBe('past_due');
      await sandbox.sims.gateway_a.setSubscriptionStatus(created.gatewayRef, 'trialing');
      expect((await sync(created.id)).body.status).toBe('trialing');
      expect(await eventTypes(created.id)).toEqual(['subscription.created', 'subscription.past_due']);

      expect((await cancel(created.id)).body.status).toBe('canceled');
      await sandbox.sims.gateway_a.setSubscriptionStatus(created.gatewayRef, 'active');
      expect((await sync(created.id)).body.status).toBe('canceled');
      expect(await eventTypes(created.id)).toEqual(['subscription.created', 'subscription.past_due', 'subscription.canceled']);
    } finally {
      await lost.restore();
    }
  });

  it('gateway_a stamps whole seconds: a notification of the sync\'s own second is not older and applies, backward too; one of an earlier second does not', async () => {
    await sandbox.route('SUBSCRIPTION', 'gateway_a');
    const sim = sandbox.sims.gateway_a;
    const created = (await create()).body;
    const stayed = await withinOneSecond(
      async () => {
        expect((await sync(created.id)).body.status).toBe('active');
        // The customer's card needs confirming again: the gateway moves it back and notifies, within the second the sync read it.
        await sim.setSubscriptionStatus(created.gatewayRef, 'trialing');
        return lastEventSecond(sim.webhookLog());
      },
      () => sim.setSubscriptionStatus(created.gatewayRef, 'active'),
    );
    expect(stayed).toBe(true);
    expect((await get(created.id)).body.status).toBe('trialing');

    // An earlier second is older: a notification of it, arriving after a sync of a later second, changes nothing.
    sim.setWebhooksEnabled(false);
    try {
      await sim.setSubscriptionStatus(created.gatewayRef, 'past_due');
      expect(await nextWholeSecond()).toBeGreaterThan(lastEventSecond(sim.webhookLog()));
      await sim.setSubscriptionStatus(created.gatewayRef, 'active');
      expect((await sync(created.id)).body.status).toBe('active');
    } finally {
      sim.setWebhooksEnabled(true);
    }
    await sim.replayWebhooks({ last: 2 });
    expect((await get(created.id)).body.status).toBe('active');
    expect(await eventTypes(created.id)).toEqual(['subscription.created']);
  });

  it('a notification older than the sync changes nothing; a newer one still does', async () => {
    await sandbox.route('SUBSCRIPTION', 'gateway_c');
    const created = (await create({ gateway: TRIAL_PLAN })).body;
    const { subscriptionRef } = await sandbox.sims.gateway_c.completeCheckout(created.gatewayRef);
    const lost = loseWebhooks('gateway_c');
    try {
      await sandbox.sims.gateway_c.endTrial(subscriptionRef); // its notification says active
      // Gateways may stamp events to the second: the next change goes in a later second than this one's stamp.
      const stamped = Math.floor(Date.now() / 1000);
      await eventually(async () => Math.floor(Date.now() / 1000) > stamped, 5_000, 'a later second');
      await sandbox.sims.gateway_c.markPastDue(subscriptionRef);
      expect((await sync(created.id)).body.status).toBe('past_due');
    } finally {
      await lost.restore();
    }
    // Both notifications arrive late, the older first: "active" was already overtaken when the gateway was read.
    await sandbox.sims.gateway_c.replayWebhooks({ last: 2 });
    expect((await get(created.id)).body.status).toBe('past_due');
    expect(await eventTypes(created.id)).toEqual(['subscription.created', 'subscription.past_due']);

    // The customer pays: the gateway's new notifications are newer than the sync, and apply.
    await sandbox.sims.gateway_c.renewSubscription(subscriptionRef);
    expect((await get(created.id)).body.status).toBe('active');
    expect(await eventTypes(created.id)).toEqual(['subscription.created', 'subscription.past_due', 'subscription.renewed']);
  });

  it('404 for another environment\'s subscription and for a malformed id', async () => {
    await sandbox.route('SUBSCRIPTION', 'gateway_b');
    const created = (await create()).body;
    const other = await createTenant(service);
    for (const [id, key] of [
      [created.id, other.apiKey],
      ['nope', tenant.apiKey],
      ['pay_000000000000000000000000', tenant.apiKey],
    ] as const) {
      const reply = await sync(id, key);
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({ error: 'not_found', message: expect.any(String) });
    }
  });

  it('409 missing_gateway_ref while the create was never registered at the gateway', async () => {
    await sandbox.route('SUBSCRIPTION', 'gateway_b');
    sandbox.sims.gateway_b.injectFault('createSubscription', { kind: 'server_error' });
    const externalId = `sub-unregistered-${Math.random().toString(36).slice(2)}`;
    expect((await create({ externalId })).status).toBe(502);
    const stored = (await send('GET', `/v1/subscriptions?externalId=${externalId}`, '/v1/subscriptions')).body;
    expect(stored.gatewayRef).toBeNull();
    const reply = await sync(stored.id);
    expect(reply.status).toBe(409);
    expect(reply.body).toEqual({ error: 'missing_gateway_ref', message: expect.any(String) });
  });

  it('409 missing_gateway_ref when the gateway answers that it does not know the subscription; recorded for operators', async () => {
    await sandbox.route('SUBSCRIPTION', 'gateway_b');
    const created = (await create()).body;
    // The gateway lost it (a sandbox reset, a deleted account): its reference leads nowhere there.
    await service.services.db.fork().nativeUpdate(Subscription, { id: created.id }, { gatewayRef: 'ass_unknown_to_the_gateway' });
    const reply = await sync(created.id);
    expect(reply.status).toBe(409);
    expect(reply.body).toEqual({ error: 'missing_gateway_ref', message: expect.any(String) });
    const stored = await service.services.db.fork().findOneOrFail(Subscription, { id: created.id });
    expect(stored).toMatchObject({ status: 'active', gatewayMissingAt: expect.any(Date), reconcileAt: null });
  });

  it('401 without a valid key; 409 provider_not_configured when its gateway has no account in the environment', async () => {
    await sandbox.route('SUBSCRIPTION', 'gateway_b');
    const created = (await create()).body;
    for (const key of [undefined, 'sk_test_not_a_key']) {
      const reply = await call(service.url, 'POST', `/v1/subscriptions/${created.id}/sync`, { key });
      expect(reply.status).toBe(401);
      expect(reply.body.error).toBe('unauthorized');
    }
    // An environment whose gateway_b account is gone (here: one that never had any) still holds the subscription.
    const bare = await createTenant(service);
    await service.services.db.fork().nativeUpdate(Subscription, { id: created.id }, { environment: bare.environmentId });
    const reply = await sync(created.id, bare.apiKey);
    expect(reply.status).toBe(409);
    expect(reply.body).toEqual({ error: 'provider_not_configured', message: expect.any(String), provider: 'gateway_b' });
  });

  it('502 gateway_error when the gateway fails; nothing changes', async () => {
    await sandbox.route('SUBSCRIPTION', 'gateway_b');
    const created = (await create()).body;
    const lost = loseWebhooks('gateway_b');
    try {
      await sandbox.sims.gateway_b.markPastDue(created.gatewayRef);
      sandbox.sims.gateway_b.injectFault('getSubscription', { kind: 'server_error' });
      const reply = await sync(created.id);
      expect(reply.status).toBe(502);
      expect(reply.body).toMatchObject({ error: 'gateway_error', provider: 'gateway_b' });
      expect((await get(created.id)).body.status).toBe('active');
      expect(await eventTypes(created.id)).toEqual(['subscription.created']);
    } finally {
      await lost.restore();
    }
  });

  it('has payment sync\'s limit, 10 a minute per key, in a quota of its own', async () => {
    await sandbox.route('SUBSCRIPTION', 'gateway_b');
    const own = await createTenant(service);
    const reply = (key: string) => call(service.url, 'POST', '/v1/subscriptions/sub_000000000000000000000000/sync', { key });
    for (let i = 0; i < 10; i++) {
      const answer = await reply(own.apiKey);
      expect(answer.status).toBe(404);
      expect(answer.headers.get('x-ratelimit-limit')).toBe('10');
      expect(answer.headers.get('x-ratelimit-remaining')).toBe(String(9 - i));
    }
    const refused = await reply(own.apiKey);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe('rate_limit_exceeded');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Payment sync keeps its own window.
    const paymentSync = await call(service.url, 'POST', '/v1/payments/pay_000000000000000000000000/sync', { key: own.apiKey });
    expect(paymentSync.status).toBe(404);
    expect(paymentSync.headers.get('x-ratelimit-remaining')).toBe('9');

    // A key's own payment sync limit is its subscription sync limit too.
    const limited = await createTenant(service);
    await service.admin.apiKeys.setRateLimits({ apiKeyId: limited.apiKeyId, limits: { payments_sync: 2 } });
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await reply(limited.apiKey));
    expect(answers.map((a) => a.status)).toEqual([404, 404, 429]);
    expect(answers[0]!.headers.get('x-ratelimit-limit')).toBe('2');
  });
});
