/**
 * gateway_c subscriptions over real sockets: the plan read that fixes the
 * price, closing an abandoned subscription checkout link, and the race where
 * a checkout completes in the same instant as its link's deactivation.
 */
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGatewayAdapter } from '../../server/gateways/index';
import { gatewayCSeededPlans } from '../../server/sandbox/simulators';
import { CREDENTIALS, CUSTOMER, expectApiError, PATIENT_TIMEOUTS, startGateway, subscriptionInput, type GatewayUnderTest } from '../support/gateway-harness';
import { startWebhookReceiver, type WebhookReceiver } from '../support/gateway-webhook-receiver';
import { eventually } from '../support/outbox-events';

let gw: GatewayUnderTest;
let receiver: WebhookReceiver;
let seq = 0;
const key = () => `cl-${++seq}`;
const newLink = (trialDays = 0) => gw.adapter.createSubscription(subscriptionInput('gateway_c', key(), trialDays));

async function control(path: string, body?: unknown) {
  const response = await request(`${gw.sim.url}${path}`, {
    method: 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.body.text();
  return { status: response.statusCode, json: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

/** Every webhook received since the test started, parsed by the adapter. */
async function events() {
  await gw.sim.flushWebhooks();
  const parsed = [];
  for (const hook of receiver.received) parsed.push(...(await gw.adapter.parseWebhook(hook)));
  return parsed;
}

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  gw = await startGateway('gateway_c', { webhookUrl: receiver.url });
});
afterAll(async () => {
  await gw.close();
  await receiver.close();
});
beforeEach(async () => {
  await gw.sim.flushWebhooks();
  receiver.received.length = 0;
});

describe('plans', () => {
  it('getPlan reads each seeded plan from GET /v2/plans/{id}', async () => {
    expect(gatewayCSeededPlans.length).toBeGreaterThan(0);
    for (const plan of gatewayCSeededPlans) {
      expect(await gw.adapter.getPlan!(plan.id)).toEqual({ planId: plan.id, amount: plan.amount_cents, interval: plan.interval, trialDays: plan.trial_days });
    }
    expect(await gw.adapter.getPlan!('plan_monthly_trial')).toMatchObject({ amount: 2990, interval: 'monthly', trialDays: 14 });
  });

  it('a failing plan read is gateway_error, never a missing plan', async () => {
    gw.sim.injectFault('getPlan', { kind: 'server_error', status: 503 });
    await expectApiError(gw.adapter.getPlan!('plan_monthly_basic'), 'gateway_error', { provider: 'gateway_c' });
    expect(gw.sim.stats().calls.getPlan).toBeGreaterThan(0);
  });

  it('an unknown plan is null, not an error', async () => {
    expect(await gw.adapter.getPlan!('plan_nope')).toBeNull();
    // The id is one path segment, whatever it holds.
    expect(await gw.adapter.getPlan!('../checkout-links')).toBeNull();
  });

  it('only gateway_c has plans: the others leave getPlan undefined', async () => {
    for (const name of ['gateway_a', 'gateway_b'] as const) {
      const other = await startGateway(name);
      expect(other.adapter.getPlan).toBeUndefined();
      expect(other.adapter.deactivateSubscriptionCheckout).toBeUndefined();
      await other.close();
    }
  });
});

describe('deactivateSubscriptionCheckout', () => {
  it('closes an open link: canceled, and neither the hosted page nor the control route takes a card any more', async () => {
    const link = await newLink();
    const result = await gw.adapter.deactivateSubscriptionCheckout!(link.gatewayRef);
    expect(result).toEqual({ outcome: 'deactivated', subscription: expect.objectContaining({ gatewayRef: link.gatewayRef, status: 'canceled', rawStatus: 'deactivated' }) });
    expect(await gw.adapter.getSubscription(link.gatewayRef)).toMatchObject({ status: 'canceled', rawStatus: 'deactivated' });
    expect(await events()).toMatchObject([{ kind: 'subscription_status', subscription: { gatewayRef: link.gatewayRef, status: 'canceled' } }]);

    const subscriptions = gw.sim.stats().created.subscriptions;
    const page = await request(link.checkoutUrl!);
    expect(page.statusCode).toBe(410);
    await page.body.dump();
    const posted = await request(link.checkoutUrl!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'action=pay&number=4242424242424242&name=Ana&expiry=12%2F34&cvc=123',
    });
    expect(posted.statusCode).toBe(410);
    await posted.body.dump();
    expect((await control(`/_sim/subscriptions/${link.gatewayRef}/complete-checkout`)).status).toBe(409);
    await expect(gw.sim.completeCheckout(link.gatewayRef)).rejects.toThrow();
    expect((await gw.adapter.getSubscription(link.gatewayRef)).gatewayRef).toBe(link.gatewayRef);
    expect(gw.sim.stats().created.subscriptions).toBe(subscriptions);
    expect((await events()).filter((event) => event.kind === 'subscription_checkout_completed')).toEqual([]);
  });

  it('is safe to repeat, and an expired link is already closed', async () => {
    const link = await newLink(14);
    await gw.adapter.deactivateSubscriptionCheckout!(link.gatewayRef);
    expect(await gw.adapter.deactivateSubscriptionCheckout!(link.gatewayRef)).toMatchObject({ outcome: 'deactivated', subscription: { status: 'canceled' } });

    const expired = await newLink();
    await gw.sim.expirePayment(expired.gatewayRef);
    expect(await gw.adapter.deactivateSubscriptionCheckout!(expired.gatewayRef)).toMatchObject({
      outcome: 'deactivated',
      subscription: { gatewayRef: expired.gatewayRef, status: 'canceled', rawStatus: 'expired' },
    });
  });

  it('a link whose checkout completed first reports the running sub_ as completed, for the caller to cancel', async () => {
    const link = await newLink();
    const { subscriptionRef } = await gw.sim.completeCheckout(link.gatewayRef);
    const result = await gw.adapter.deactivateSubscriptionCheckout!(link.gatewayRef);
    expect(result).toEqual({ outcome: 'completed', subscription: expect.objectContaining({ gatewayRef: subscriptionRef, status: 'active' }) });
    expect(await gw.adapter.cancelSubscription(subscriptionRef, { atPeriodEnd: false })).toMatchObject({ gatewayRef: subscriptionRef, status: 'canceled' });
  });

  it('a checkout completed between reading the link and deactivating it (409) is reported as completed', async () => {
    const link = await newLink();
    // The deactivation is held up at the gateway while the customer completes checkout: the checkout
    // completes once the deactivation has reached the gateway, well within the hold. The hold outlasts
    // the file's short adapter timeouts, so this call goes through a patient adapter on the same simulator.
    const patient = createGatewayAdapter('gateway_c', { baseUrl: gw.sim.url, credentials: CREDENTIALS.gateway_c, timeouts: PATIENT_TIMEOUTS });
    try {
      const deactivations = () => gw.sim.stats().calls.cancelSubscription ?? 0;
      const before = deactivations();
      gw.sim.injectFault('cancelSubscription', { kind: 'latency', ms: 2_000 });
      const pending = patient.deactivateSubscriptionCheckout!(link.gatewayRef);
      await eventually(async () => deactivations() > before, 5_000, 'the deactivation at the gateway');
      const { subscriptionRef } = await gw.sim.completeCheckout(link.gatewayRef);
      expect(await pending).toMatchObject({ outcome: 'completed', subscription: { gatewayRef: subscriptionRef } });
    } finally {
      await patient.close();
    }
  });

  it('never deactivates a payment link, and a sub_ has no link', async () => {
    const payment = await gw.adapter.createPayment({ idempotencyKey: key(), amount: 1_000, method: 'card', customer: CUSTOMER });
    await expectApiError(gw.adapter.deactivateSubscriptionCheckout!(payment.gatewayRef), 'gateway_error', { provider: 'gateway_c' });
    expect((await gw.adapter.getPayment(payment.gatewayRef)).status).toBe('pending');

    const link = await newLink();
    const { subscriptionRef } = await gw.sim.completeCheckout(link.gatewayRef);
    await expectApiError(gw.adapter.deactivateSubscriptionCheckout!(subscriptionRef), 'gateway_error', { provider: 'gateway_c' });
    // A link the gateway does not know: no retry will find it.
    await expectApiError(gw.adapter.deactivateSubscriptionCheckout!('pl_unknown'), 'missing_gateway_ref');
  });

  it('cancelSubscription on a pl_ uses it: deactivates an open link, cancels the sub_ of a completed one', async () => {
    const open = await newLink();
    expect(await gw.adapter.cancelSubscription(open.gatewayRef, { atPeriodEnd: false })).toMatchObject({ gatewayRef: open.gatewayRef, status: 'canceled' });
    const done = await newLink();
    const { subscriptionRef } = await gw.sim.completeCheckout(done.gatewayRef);
    expect(await gw.adapter.cancelSubscription(done.gatewayRef, { atPeriodEnd: false })).toMatchObject({ gatewayRef: subscriptionRef, status: 'canceled' });
  });
});

describe('a checkout completing in the same instant as its deactivation', () => {
  it('race-deactivation: the deactivation answers deactivated, yet a sub_ appears and subscription.created is sent; it can be canceled at once', async () => {
    const link = await newLink();
    expect((await control(`/_sim/subscriptions/${link.gatewayRef}/race-deactivation`)).status).toBe(200);

    const result = await gw.adapter.deactivateSubscriptionCheckout!(link.gatewayRef);
    expect(result).toMatchObject({ outcome: 'deactivated', subscription: { gatewayRef: link.gatewayRef, status: 'canceled' } });

    const received = await events();
    expect(received.map((event) => event.kind)).toEqual(['subscription_status', 'subscription_checkout_completed']);
    const completed = received[1]!;
    if (completed.kind !== 'subscription_checkout_completed') throw new Error('expected a checkout completion');
    expect(completed.checkoutRef).toBe(link.gatewayRef);
    expect(completed.subscription).toMatchObject({ gatewayRef: expect.stringMatching(/^sub_/), status: 'active' });

    // What the service does on that webhook: cancel the new subscription right away.
    const canceled = await gw.adapter.cancelSubscription(completed.subscription.gatewayRef, { atPeriodEnd: false });
    expect(canceled).toMatchObject({ status: 'canceled', nextBillingAt: null });
    await expect(gw.sim.renewSubscription(completed.subscription.gatewayRef)).rejects.toThrow();
  });

  it('race-deactivation arms only once, only an open subscription link, and only on gateway_c', async () => {
    const link = await newLink();
    await gw.sim.raceNextDeactivation(link.gatewayRef);
    await gw.adapter.deactivateSubscriptionCheckout!(link.gatewayRef);
    expect((await control(`/_sim/subscriptions/${link.gatewayRef}/race-deactivation`)).status).toBe(409);

    const payment = await gw.adapter.createPayment({ idempotencyKey: key(), amount: 1_000, method: 'card', customer: CUSTOMER });
    expect((await control(`/_sim/subscriptions/${payment.gatewayRef}/race-deactivation`)).status).toBe(409);
    expect((await control('/_sim/subscriptions/pl_nope/race-deactivation')).status).toBe(404);

    for (const name of ['gateway_a', 'gateway_b'] as const) {
      const other = await startGateway(name);
      const sub = await other.adapter.createSubscription(subscriptionInput(name, key()));
      await expect(other.sim.raceNextDeactivation(sub.gatewayRef)).rejects.toThrow(/no checkout link/);
      await other.close();
    }
  });

  it('complete-checkout with racingDeactivation over HTTP completes a link just deactivated', async () => {
    const link = await newLink();
    await gw.adapter.deactivateSubscriptionCheckout!(link.gatewayRef);
    const completed = await control(`/_sim/subscriptions/${link.gatewayRef}/complete-checkout`, { racingDeactivation: true });
    expect(completed.status).toBe(200);
    expect(completed.json).toEqual({ subscriptionRef: expect.stringMatching(/^sub_/) });
    expect((await events()).at(-1)).toMatchObject({ kind: 'subscription_checkout_completed', checkoutRef: link.gatewayRef });
    expect((await control(`/_sim/subscriptions/${link.gatewayRef}/complete-checkout`, { racingDeactivation: 'yes' })).status).toBe(400);
  });
});
