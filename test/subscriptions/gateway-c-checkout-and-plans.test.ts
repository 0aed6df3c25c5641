/**
 * gateway_c subscriptions start as a checkout link (`pl_…`): canceling one
 * whose customer never completed checkout deactivates the link, and a
 * checkout completed in that same moment cannot bring it back. The plan at
 * the gateway fixes amount and interval.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxEvent } from '../../server/db/entities';
import { startSandbox, type Sandbox } from '../support/gateways';
import { call } from '../support/http';
import { eventually } from '../support/outbox-events';
import { startReceiver, type Receiver } from '../support/receiver';
import { createEnvironment, startWebhookService, type WebhookTestService } from '../support/webhook-service';

let service: WebhookTestService;
let sandbox: Sandbox;
let receiver: Receiver;
let apiKey: string;
let environmentId: string;

beforeAll(async () => {
  service = await startWebhookService({ env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true' } });
  ({ environmentId } = await createEnvironment(service));
  apiKey = (await service.admin.apiKeys.create({ environmentId })).secret;
  sandbox = await startSandbox(service, environmentId, { SUBSCRIPTION: 'gateway_c' });
  receiver = await startReceiver();
  await service.admin.webhooks.createEndpoint({ environmentId, url: receiver.url() });
});
afterAll(async () => {
  await receiver?.close();
  await sandbox?.close();
  await service?.stop();
});

const customer = { name: 'Ana Souza', email: 'ana@example.com', document: '529.982.247-25', phone: '11987654321' };
const create = (overrides: Record<string, unknown> = {}) =>
  call(service.url, 'POST', '/v1/subscriptions', {
    key: apiKey,
    body: { amount: 2990, interval: 'monthly', externalId: `sub-${Math.random().toString(36).slice(2)}`, customer, gateway: { gateway_c: { planId: 'plan_monthly_basic' } }, ...overrides },
  });
const cancel = (id: string, body?: unknown) => call(service.url, 'POST', `/v1/subscriptions/${id}/cancel`, { key: apiKey, body });
const eventsOf = async (id: string) => (await service.services.db.fork().find(OutboxEvent, { resourceId: id }, { orderBy: { sequence: 'asc' } })).map((e) => e.type);
const deliveredFor = (id: string) => receiver.received.filter((d) => d.json.data.subscriptionId === id).map((d) => d.json.type);

describe('an abandoned gateway_c checkout', () => {
  it('is canceled: 200 canceled with canceledAt, the link can no longer be paid, one subscription.canceled delivered', async () => {
    const created = (await create()).body;
    expect(created).toMatchObject({ status: 'active', gatewayRef: expect.stringMatching(/^pl_/), checkoutUrl: expect.any(String) });

    const atPeriodEnd = await cancel(created.id, { atPeriodEnd: true });
    expect(atPeriodEnd.status).toBe(400);
    expect(atPeriodEnd.body).toMatchObject({ error: 'invalid_input', issues: [{ path: ['atPeriodEnd'], message: expect.stringContaining('no period') }] });

    const canceled = await cancel(created.id);
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ id: created.id, status: 'canceled', canceledAt: expect.any(String), gatewayRef: created.gatewayRef });

    // The customer comes back to the link: the gateway no longer takes a card on it.
    await expect(sandbox.sims.gateway_c.completeCheckout(created.gatewayRef)).rejects.toThrow();
    const again = await cancel(created.id);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'already_canceled', status: 'canceled' });

    expect(await eventsOf(created.id)).toEqual(['subscription.canceled']);
    await eventually(async () => deliveredFor(created.id).length === 1);
    expect(deliveredFor(created.id)).toEqual(['subscription.canceled']);
  });
});

describe('a checkout completed in the moment its subscription was canceled', () => {
  it('is canceled at the gateway at once; the merchant sees one subscription.canceled and never a subscription.created', async () => {
    const created = (await create()).body;
    expect((await cancel(created.id)).body.status).toBe('canceled');

    // The gateway race: the customer's card went through on the link while it was being deactivated.
    const { subscriptionRef } = await sandbox.sims.gateway_c.completeCheckout(created.gatewayRef, { racingDeactivation: true });
    await sandbox.sims.gateway_c.flushWebhooks();

    const after = await call(service.url, 'GET', `/v1/subscriptions/${created.id}`, { key: apiKey });
    expect(after.body).toMatchObject({ status: 'canceled', gatewayRef: subscriptionRef });
    // Canceled at the gateway: it cannot be charged again.
    await expect(sandbox.sims.gateway_c.renewSubscription(subscriptionRef)).rejects.toThrow();

    // A redelivery of the same notification changes nothing and cancels nothing twice.
    await sandbox.sims.gateway_c.replayWebhooks({ last: 1 });
    expect(await eventsOf(created.id)).toEqual(['subscription.canceled']);
    await eventually(async () => deliveredFor(created.id).length === 1);
    expect(deliveredFor(created.id)).toEqual(['subscription.canceled']);
  });
});

describe('the gateway_c plan fixes the price', () => {
  const stored = async (externalId: string) => (await call(service.url, 'GET', `/v1/subscriptions?externalId=${externalId}`, { key: apiKey })).status;

  it('refuses an unknown plan at gateway.gateway_c.planId, creating nothing', async () => {
    const reply = await create({ externalId: 'unknown-plan', gateway: { gateway_c: { planId: 'plan_nope' } } });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: 'invalid_input', message: expect.any(String), issues: [{ path: ['gateway', 'gateway_c', 'planId'], message: expect.stringContaining('plan_nope') }] });
    expect(await stored('unknown-plan')).toBe(404);
  });

  it('refuses an amount other than the plan\'s, naming the plan\'s amount', async () => {
    const reply = await create({ externalId: 'wrong-amount', amount: 4990 });
    expect(reply.status).toBe(400);
    expect(reply.body.issues).toEqual([{ path: ['amount'], message: expect.stringContaining('2990') }]);
    expect(await stored('wrong-amount')).toBe(404);
  });

  it('refuses an interval other than the plan\'s, naming the plan\'s interval', async () => {
    const reply = await create({ externalId: 'wrong-interval', interval: 'yearly' });
    expect(reply.status).toBe(400);
    expect(reply.body.issues).toEqual([{ path: ['interval'], message: expect.stringContaining('monthly') }]);
    expect(await stored('wrong-interval')).toBe(404);
  });

  it('refuses trial days other than the plan\'s at trialDays, naming the plan\'s trial', async () => {
    const yearOnNoTrial = await create({ externalId: 'trial-on-plan-without', trialDays: 365 });
    expect(yearOnNoTrial.status).toBe(400);
    expect(yearOnNoTrial.body).toEqual({ error: 'invalid_input', message: expect.any(String), issues: [{ path: ['trialDays'], message: expect.stringContaining('no trial') }] });
    expect(await stored('trial-on-plan-without')).toBe(404);

    const shorter = await create({ externalId: 'shorter-trial', trialDays: 7, gateway: { gateway_c: { planId: 'plan_monthly_trial' } } });
    expect(shorter.status).toBe(400);
    expect(shorter.body.issues).toEqual([{ path: ['trialDays'], message: expect.stringContaining('14') }]);
    expect(await stored('shorter-trial')).toBe(404);
  });

  it('takes the plan\'s trial when trialDays is left out, and accepts it stated', async () => {
    const planTrial = (await create({ gateway: { gateway_c: { planId: 'plan_monthly_trial' } } })).body;
    expect(planTrial).toMatchObject({ status: 'trialing', trialDays: 14, trialEndsAt: expect.any(String) });
    const stated = await create({ trialDays: 14, gateway: { gateway_c: { planId: 'plan_monthly_trial' } } });
    expect(stated.status).toBe(201);
    expect(stated.body).toMatchObject({ status: 'trialing', trialDays: 14 });
    const none = (await create({ trialDays: 0 })).body;
    expect(none).toMatchObject({ status: 'active', trialDays: 0, trialEndsAt: null });
  });

  it('creates as before when amount and interval match the plan', async () => {
    const reply = await create({ externalId: 'yearly-pro', amount: 29900, interval: 'yearly', gateway: { gateway_c: { planId: 'plan_yearly_pro' } } });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ amount: 29900, interval: 'yearly', status: 'active', gatewayRef: expect.stringMatching(/^pl_/) });
  });
});
