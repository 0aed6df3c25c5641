/** gateway_c adapter against its simulator over real sockets: every operation, its webhooks, their authenticity. */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CREDENTIALS, CUSTOMER, expectApiError, startGateway, subscriptionInput, type GatewayUnderTest } from '../support/gateway-harness';
import { startWebhookReceiver, type WebhookReceiver } from '../support/gateway-webhook-receiver';

let gw: GatewayUnderTest;
let receiver: WebhookReceiver;
let seq = 0;
const key = () => `c-${++seq}`;
const card = (extra: Record<string, unknown> = {}) => ({ idempotencyKey: key(), amount: 8_000, method: 'card' as const, customer: CUSTOMER, ...extra });

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

const lastEvents = async () => {
  await gw.sim.flushWebhooks();
  const hook = receiver.received.at(-1);
  if (!hook) throw new Error('no webhook received');
  return gw.adapter.parseWebhook(hook);
};

describe('payments (single checkout links)', () => {
  it('has no Pix: refused before any call', async () => {
    expect(gw.adapter.capabilities.methods).toEqual(['card']);
    await expectApiError(gw.adapter.createPayment({ ...card(), method: 'pix' }), 'method_not_supported', { provider: 'gateway_c', method: 'pix' });
    expect(gw.sim.stats().calls.createPayment).toBeUndefined();
  });

  it('creates a pl_ checkout link; the card is known once paid', async () => {
    const payment = await gw.adapter.createPayment(card({ installments: 24 }));
    expect(payment).toMatchObject({ status: 'pending', rawStatus: 'open', method: 'card', amount: 8_000, pix: null, card: null });
    expect(payment.gatewayRef).toMatch(/^pl_/);
    expect(payment.checkoutUrl).toContain(`/pay/${payment.gatewayRef}`);
    await gw.sim.payPayment(payment.gatewayRef, { brand: 'amex', last4: '0005' });
    expect(await gw.adapter.getPayment(payment.gatewayRef)).toMatchObject({ gatewayRef: payment.gatewayRef, status: 'paid', card: { brand: 'amex', last4: '0005' } });
  });

  it.each([
    { title: 'missing', phone: null },
    { title: 'too short', phone: '119876' },
  ])('a $title phone is invalid_input on customer.phone', async ({ phone }) => {
    const error = await expectApiError(gw.adapter.createPayment(card({ customer: { ...CUSTOMER, phone } })), 'invalid_input');
    expect(error.extra.issues).toEqual([{ path: ['customer', 'phone'], message: expect.any(String) }]);
  });

  it('an unknown ref is missing_gateway_ref: the gateway does not know it, and retrying will not help', async () => {
    await expectApiError(gw.adapter.getPayment('pl_does_not_exist'), 'missing_gateway_ref');
    await expectApiError(gw.adapter.getPayment('ch_does_not_exist'), 'missing_gateway_ref');
  });

  it('sends a formatted phone as digits', async () => {
    const payment = await gw.adapter.createPayment(card({ customer: { ...CUSTOMER, phone: '+55 (11) 98765-4321' } }));
    expect(payment.status).toBe('pending');
  });

  it('refuses 25 installments as invalid_input on card.installments', async () => {
    const error = await expectApiError(gw.adapter.createPayment(card({ installments: 25 })), 'invalid_input');
    expect(error.extra.issues).toEqual([{ path: ['card', 'installments'], message: expect.stringContaining('24') }]);
  });

  it('dedupes on X-Idempotency-Key', async () => {
    const input = card();
    const before = gw.sim.stats().created.payments;
    const first = await gw.adapter.createPayment(input);
    expect((await gw.adapter.createPayment(input)).gatewayRef).toBe(first.gatewayRef);
    expect(gw.sim.stats().created.payments).toBe(before + 1);
  });

  it('cancels an open link by deactivating it; a paid one is refused', async () => {
    const open = await gw.adapter.createPayment(card());
    expect(await gw.adapter.cancelPayment(open.gatewayRef)).toMatchObject({ status: 'canceled', rawStatus: 'deactivated' });
    const paid = await gw.adapter.createPayment(card());
    await gw.sim.payPayment(paid.gatewayRef);
    await expectApiError(gw.adapter.cancelPayment(paid.gatewayRef), 'gateway_error', { provider: 'gateway_c' });
  });

  it('a subscription link is not a payment', async () => {
    const sub = await gw.adapter.createSubscription(subscriptionInput('gateway_c', key()));
    await expectApiError(gw.adapter.getPayment(sub.gatewayRef), 'gateway_error');
  });
});

describe('subscriptions (plans, pl_ → sub_)', () => {
  it('requires a plan id, refused before any call', async () => {
    const calls = gw.sim.stats().calls.createSubscription ?? 0;
    const error = await expectApiError(gw.adapter.createSubscription({ ...subscriptionInput('gateway_c', key()), planId: undefined }), 'invalid_input');
    expect(error.extra.issues).toEqual([{ path: ['gateway', 'gateway_c', 'planId'], message: expect.any(String) }]);
    expect(gw.sim.stats().calls.createSubscription ?? 0).toBe(calls);
  });

  it('an unknown plan is invalid_input on gateway.gateway_c.planId', async () => {
    const error = await expectApiError(gw.adapter.createSubscription({ ...subscriptionInput('gateway_c', key()), planId: 'plan_nope' }), 'invalid_input');
    expect(error.extra.issues).toEqual([{ path: ['gateway', 'gateway_c', 'planId'], message: expect.any(String) }]);
  });

  it('requires the phone', async () => {
    const input = { ...subscriptionInput('gateway_c', key()), customer: { ...CUSTOMER, phone: undefined } };
    const error = await expectApiError(gw.adapter.createSubscription(input), 'invalid_input');
    expect(error.extra.issues).toEqual([{ path: ['customer', 'phone'], message: expect.any(String) }]);
  });

  it('starts as a pl_ link with a checkout and becomes sub_ on checkout completion', async () => {
    const link = await gw.adapter.createSubscription(subscriptionInput('gateway_c', key(), 14));
    expect(link).toMatchObject({ status: 'trialing', rawStatus: 'open', nextBillingAt: null });
    expect(link.gatewayRef).toMatch(/^pl_/);
    expect(link.checkoutUrl).toContain(link.gatewayRef);
    expect(await gw.adapter.getSubscription(link.gatewayRef)).toEqual(link);

    const { subscriptionRef } = await gw.sim.completeCheckout(link.gatewayRef);
    expect(subscriptionRef).toMatch(/^sub_/);
    const [completed] = await lastEvents();
    expect(completed).toMatchObject({
      kind: 'subscription_checkout_completed',
      checkoutRef: link.gatewayRef,
      subscription: { gatewayRef: subscriptionRef, status: 'trialing', checkoutUrl: null },
    });
    expect(completed?.kind === 'subscription_checkout_completed' && completed.subscription.trialEndsAt).toBeTruthy();
    // Sync through the old ref finds the real subscription.
    expect((await gw.adapter.getSubscription(link.gatewayRef)).gatewayRef).toBe(subscriptionRef);
  });

  it('a link without trial is active; an expired link is canceled', async () => {
    const link = await gw.adapter.createSubscription(subscriptionInput('gateway_c', key()));
    expect(link.status).toBe('active');
    await gw.sim.expirePayment(link.gatewayRef);
    expect(await gw.adapter.getSubscription(link.gatewayRef)).toMatchObject({ status: 'canceled', rawStatus: 'expired' });
  });

  it('renewal, charge failure, past due and trial end parse to their events; charges are readable payments', async () => {
    const link = await gw.adapter.createSubscription(subscriptionInput('gateway_c', key(), 14));
    const { subscriptionRef } = await gw.sim.completeCheckout(link.gatewayRef);
    const started = await gw.adapter.getSubscription(subscriptionRef);

    await gw.sim.endTrial(subscriptionRef);
    expect(await lastEvents()).toMatchObject([{ kind: 'subscription_status', subscription: { gatewayRef: subscriptionRef, status: 'active' } }]);

    const { paymentRef } = await gw.sim.renewSubscription(subscriptionRef);
    expect(paymentRef).toMatch(/^ch_/);
    const [renewal] = await lastEvents();
    expect(renewal).toMatchObject({
      kind: 'subscription_charge',
      outcome: 'paid',
      subscriptionRef,
      payment: { gatewayRef: paymentRef, status: 'paid', amount: 2990, subscriptionRef },
    });
    expect(renewal?.kind === 'subscription_charge' && renewal.nextBillingAt! > started.nextBillingAt!).toBe(true);
    expect(await gw.adapter.getPayment(paymentRef!)).toMatchObject({ status: 'paid', card: { last4: '4242' }, subscriptionRef, checkoutUrl: null });

    const failed = await gw.sim.failSubscriptionCharge(link.gatewayRef);
    expect(await lastEvents()).toMatchObject([
      { kind: 'subscription_charge', outcome: 'failed', subscriptionRef, payment: { gatewayRef: failed.paymentRef, status: 'failed' } },
    ]);

    await gw.sim.markPastDue(subscriptionRef);
    expect(await lastEvents()).toMatchObject([{ kind: 'subscription_status', subscription: { status: 'past_due' } }]);
  });

  it('cancels immediately only: a pending link is deactivated, a real subscription canceled', async () => {
    const pending = await gw.adapter.createSubscription(subscriptionInput('gateway_c', key()));
    await expectApiError(gw.adapter.cancelSubscription(pending.gatewayRef, { atPeriodEnd: true }), 'invalid_input');
    expect(await gw.adapter.cancelSubscription(pending.gatewayRef, { atPeriodEnd: false })).toMatchObject({ gatewayRef: pending.gatewayRef, status: 'canceled' });

    const link = await gw.adapter.createSubscription(subscriptionInput('gateway_c', key()));
    const { subscriptionRef } = await gw.sim.completeCheckout(link.gatewayRef);
    const canceled = await gw.adapter.cancelSubscription(link.gatewayRef, { atPeriodEnd: false });
    expect(canceled).toMatchObject({ gatewayRef: subscriptionRef, status: 'canceled', nextBillingAt: null });
    expect(canceled.canceledAt).not.toBeNull();
  });
});

describe('webhooks (HMAC-SHA256 base64 over the raw body)', () => {
  it('a paid link reaches the receiver and parses to payment_status', async () => {
    const payment = await gw.adapter.createPayment(card());
    await gw.sim.payPayment(payment.gatewayRef);
    expect(receiver.received).toHaveLength(1);
    expect(await lastEvents()).toMatchObject([{ kind: 'payment_status', payment: { gatewayRef: payment.gatewayRef, status: 'paid' } }]);
  });

  it('refuses a missing, forged or tampered signature', async () => {
    const payment = await gw.adapter.createPayment(card());
    await gw.sim.declinePayment(payment.gatewayRef);
    await gw.sim.flushWebhooks();
    const genuine = receiver.received.at(-1)!;
    const header = genuine.headers['x-signature-sha256'] as string;
    await expect(gw.adapter.parseWebhook({ headers: {}, rawBody: genuine.rawBody })).rejects.toMatchObject({ reason: 'missing_signature' });
    const forged = createHmac('sha256', 'whsec_not_the_secret').update(genuine.rawBody).digest('base64');
    await expect(gw.adapter.parseWebhook({ headers: { 'X-Signature-SHA256': forged }, rawBody: genuine.rawBody })).rejects.toMatchObject({ reason: 'invalid_signature' });
    const tampered = Buffer.from(genuine.rawBody.toString('utf8').replace('"declined"', '"paid"'));
    expect(tampered.equals(genuine.rawBody)).toBe(false);
    await expect(gw.adapter.parseWebhook({ headers: { 'x-signature-sha256': header }, rawBody: tampered })).rejects.toMatchObject({ reason: 'invalid_signature' });
    // The same bytes re-serialized (pretty-printed) no longer match: signatures are over raw bytes.
    const reserialized = Buffer.from(JSON.stringify(JSON.parse(genuine.rawBody.toString('utf8')), null, 2));
    await expect(gw.adapter.parseWebhook({ headers: { 'x-signature-sha256': header }, rawBody: reserialized })).rejects.toMatchObject({ reason: 'invalid_signature' });
  });

  it('an unknown event type is ignored; a signed non-event is malformed', async () => {
    const sign = (body: string) => ({
      headers: { 'x-signature-sha256': createHmac('sha256', CREDENTIALS.gateway_c.webhookSecret).update(body).digest('base64') },
      rawBody: Buffer.from(body),
    });
    await expect(gw.adapter.parseWebhook(sign('{"id":"wh_1","event":"payout.sent","occurred_at":"2026-01-01T00:00:00Z","data":{}}'))).resolves.toEqual([]);
    await expect(gw.adapter.parseWebhook(sign('{"id":"wh_2","event":"charge.paid","occurred_at":"2026-01-01T00:00:00Z","data":{}}'))).rejects.toMatchObject({
      reason: 'malformed_payload',
    });
  });
});
