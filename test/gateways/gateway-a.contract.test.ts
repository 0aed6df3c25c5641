/** gateway_a adapter against its simulator over real sockets: every operation, its webhooks, their authenticity. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { WebhookRejectedError } from '../../server/gateways/errors';
import { GatewayAAdapter } from '../../server/gateways/gateway_a/adapter';
import { CREDENTIALS, CUSTOMER, expectApiError, startGateway, subscriptionInput, type GatewayUnderTest } from '../support/gateway-harness';
import { startWebhookReceiver, type WebhookReceiver } from '../support/gateway-webhook-receiver';

let gw: GatewayUnderTest;
let receiver: WebhookReceiver;
let seq = 0;
const key = () => `a-${++seq}`;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  gw = await startGateway('gateway_a', { webhookUrl: receiver.url });
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
  const last = receiver.received.at(-1);
  if (!last) throw new Error('no webhook received');
  return gw.adapter.parseWebhook(last);
};

describe('payments', () => {
  it('creates a Pix with its QR code and no checkout', async () => {
    const payment = await gw.adapter.createPayment({ idempotencyKey: key(), amount: 12_345, method: 'pix', customer: CUSTOMER });
    expect(payment).toMatchObject({ status: 'pending', method: 'pix', amount: 12_345, checkoutUrl: null, card: null, subscriptionRef: null });
    expect(payment.gatewayRef).toMatch(/^pi_/);
    expect(payment.pix?.qrCode).toBe(`${gw.sim.url}/pix/${payment.gatewayRef}/qr.png`);
    expect(payment.pix?.qrCodeText).toContain('br.gov.bcb.pix');
  });

  it('creates a card payment as a hosted checkout; brand and last4 appear once paid', async () => {
    const payment = await gw.adapter.createPayment({ idempotencyKey: key(), amount: 5000, method: 'card', installments: 12, customer: CUSTOMER });
    expect(payment).toMatchObject({ status: 'pending', pix: null, card: null });
    expect(payment.checkoutUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/checkout\/pi_/);
    await gw.sim.payPayment(payment.gatewayRef, { brand: 'mastercard', last4: '5454' });
    expect(await gw.adapter.getPayment(payment.gatewayRef)).toMatchObject({ status: 'paid', card: { brand: 'mastercard', last4: '5454' } });
  });

  it('dedupes a repeated create on the idempotency key', async () => {
    const input = { idempotencyKey: key(), amount: 700, method: 'pix' as const, customer: CUSTOMER };
    const before = gw.sim.stats().created.payments;
    const first = await gw.adapter.createPayment(input);
    const second = await gw.adapter.createPayment(input);
    expect(second.gatewayRef).toBe(first.gatewayRef);
    expect(gw.sim.stats().created.payments).toBe(before + 1);
  });

  it('refuses more than 12 installments as invalid_input on card.installments', async () => {
    const error = await expectApiError(
      gw.adapter.createPayment({ idempotencyKey: key(), amount: 5000, method: 'card', installments: 13, customer: CUSTOMER }),
      'invalid_input',
    );
    expect(error.extra.issues).toEqual([{ path: ['card', 'installments'], message: expect.stringContaining('12') }]);
  });

  it('maps declined and expired', async () => {
    const declined = await gw.adapter.createPayment({ idempotencyKey: key(), amount: 100, method: 'card', customer: CUSTOMER });
    await gw.sim.declinePayment(declined.gatewayRef);
    expect((await gw.adapter.getPayment(declined.gatewayRef)).status).toBe('failed');
    const expired = await gw.adapter.createPayment({ idempotencyKey: key(), amount: 100, method: 'pix', customer: CUSTOMER });
    await gw.sim.expirePayment(expired.gatewayRef);
    expect((await gw.adapter.getPayment(expired.gatewayRef)).status).toBe('expired');
  });

  it('cancels an unpaid card payment; a paid one is refused by the gateway', async () => {
    const open = await gw.adapter.createPayment({ idempotencyKey: key(), amount: 100, method: 'card', customer: CUSTOMER });
    expect(await gw.adapter.cancelPayment(open.gatewayRef)).toMatchObject({ gatewayRef: open.gatewayRef, status: 'canceled' });
    const paid = await gw.adapter.createPayment({ idempotencyKey: key(), amount: 100, method: 'card', customer: CUSTOMER });
    await gw.sim.payPayment(paid.gatewayRef);
    await expectApiError(gw.adapter.cancelPayment(paid.gatewayRef), 'gateway_error', { provider: 'gateway_a' });
  });

  it('an unknown ref is missing_gateway_ref: the gateway does not know it, and retrying will not help', async () => {
    await expectApiError(gw.adapter.getPayment('pi_does_not_exist'), 'missing_gateway_ref');
  });

  it('wrong credentials are a gateway_error that does not echo the key', async () => {
    const wrong = new GatewayAAdapter({ baseUrl: gw.sim.url, credentials: { ...CREDENTIALS.gateway_a, secretKey: 'sk_wrong_key_123' } });
    const error = await expectApiError(wrong.getPayment('pi_x'), 'gateway_error');
    expect(JSON.stringify(error.toBody())).not.toContain('sk_wrong');
    await wrong.close();
  });
});

describe('subscriptions', () => {
  it('creates a trialing subscription with trial end, next billing and a checkout', async () => {
    const sub = await gw.adapter.createSubscription(subscriptionInput('gateway_a', key(), 7));
    expect(sub).toMatchObject({ status: 'trialing', cancelAtPeriodEnd: false, canceledAt: null });
    expect(sub.gatewayRef).toMatch(/^subs_/);
    expect(sub.checkoutUrl).toContain(sub.gatewayRef);
    expect(sub.trialEndsAt).not.toBeNull();
    expect(sub.nextBillingAt).toBe(sub.trialEndsAt);
  });

  it('creates an active subscription without trial; getSubscription reads it back', async () => {
    const sub = await gw.adapter.createSubscription(subscriptionInput('gateway_a', key()));
    expect(sub).toMatchObject({ status: 'active', trialEndsAt: null });
    expect(await gw.adapter.getSubscription(sub.gatewayRef)).toEqual(sub);
  });

  it('refuses cancel at period end without calling the gateway', async () => {
    const sub = await gw.adapter.createSubscription(subscriptionInput('gateway_a', key()));
    const calls = gw.sim.stats().calls.cancelSubscription ?? 0;
    const error = await expectApiError(gw.adapter.cancelSubscription(sub.gatewayRef, { atPeriodEnd: true }), 'invalid_input');
    expect(error.extra.issues).toEqual([{ path: ['atPeriodEnd'], message: expect.any(String) }]);
    expect(gw.sim.stats().calls.cancelSubscription ?? 0).toBe(calls);
  });

  it('cancels immediately', async () => {
    const sub = await gw.adapter.createSubscription(subscriptionInput('gateway_a', key()));
    const canceled = await gw.adapter.cancelSubscription(sub.gatewayRef, { atPeriodEnd: false });
    expect(canceled).toMatchObject({ status: 'canceled', cancelAtPeriodEnd: false, nextBillingAt: null });
    expect(canceled.canceledAt).not.toBeNull();
  });
});

describe('webhooks', () => {
  it('a payment paid reaches the receiver and parses to payment_status paid', async () => {
    const payment = await gw.adapter.createPayment({ idempotencyKey: key(), amount: 990, method: 'pix', customer: CUSTOMER });
    await gw.sim.payPayment(payment.gatewayRef);
    expect(receiver.received).toHaveLength(1);
    const [event, ...rest] = await lastEvents();
    expect(rest).toEqual([]);
    expect(event).toMatchObject({ kind: 'payment_status', payment: { gatewayRef: payment.gatewayRef, status: 'paid', amount: 990 } });
    expect(event?.eventId).toMatch(/^evt_/);
  });

  it('renewal, charge failure, past due, trial end and cancel parse to their events', async () => {
    const sub = await gw.adapter.createSubscription(subscriptionInput('gateway_a', key(), 7));

    await gw.sim.endTrial(sub.gatewayRef);
    expect(await lastEvents()).toMatchObject([{ kind: 'subscription_status', subscription: { gatewayRef: sub.gatewayRef, status: 'active' } }]);

    const { paymentRef } = await gw.sim.renewSubscription(sub.gatewayRef);
    const [renewal] = await lastEvents();
    expect(renewal).toMatchObject({
      kind: 'subscription_charge',
      outcome: 'paid',
      subscriptionRef: sub.gatewayRef,
      payment: { gatewayRef: paymentRef, status: 'paid', amount: 2990, subscriptionRef: sub.gatewayRef },
    });
    expect(renewal?.kind === 'subscription_charge' && renewal.nextBillingAt! > sub.nextBillingAt!).toBe(true);

    const failed = await gw.sim.failSubscriptionCharge(sub.gatewayRef);
    expect(await lastEvents()).toMatchObject([
      { kind: 'subscription_charge', outcome: 'failed', subscriptionRef: sub.gatewayRef, payment: { gatewayRef: failed.paymentRef, status: 'failed' } },
    ]);

    await gw.sim.markPastDue(sub.gatewayRef);
    expect(await lastEvents()).toMatchObject([{ kind: 'subscription_status', subscription: { status: 'past_due', rawStatus: 'past_due' } }]);

    await gw.adapter.cancelSubscription(sub.gatewayRef, { atPeriodEnd: false });
    expect(await lastEvents()).toMatchObject([{ kind: 'subscription_status', subscription: { status: 'canceled' } }]);
  });

  it('refuses a missing, forged or tampered signature, and a stale timestamp', async () => {
    const payment = await gw.adapter.createPayment({ idempotencyKey: key(), amount: 990, method: 'card', customer: CUSTOMER });
    await gw.sim.declinePayment(payment.gatewayRef);
    const genuine = receiver.received.at(-1)!;
    await expect(gw.adapter.parseWebhook(genuine)).resolves.toHaveLength(1);

    const reject = (headers: Record<string, string>, rawBody = genuine.rawBody) => gw.adapter.parseWebhook({ headers, rawBody });
    const header = genuine.headers['gateway-a-signature'] as string;
    const t = /t=(\d+)/.exec(header)![1]!;
    const sign = (secret: string, ts: string, body: Buffer) => createHmac('sha256', secret).update(`${ts}.`).update(body).digest('hex');

    await expect(reject({})).rejects.toMatchObject({ reason: 'missing_signature' });
    await expect(reject({ 'gateway-a-signature': `t=${t},v1=${'0'.repeat(64)}` })).rejects.toMatchObject({ reason: 'invalid_signature' });
    await expect(reject({ 'gateway-a-signature': `t=${t},v1=${sign('whsec_wrong_secret', t, genuine.rawBody)}` })).rejects.toBeInstanceOf(WebhookRejectedError);
    const tampered = Buffer.from(genuine.rawBody.toString('utf8').replace('"payment_failed"', '"succeeded"'));
    expect(tampered.equals(genuine.rawBody)).toBe(false);
    await expect(reject({ 'gateway-a-signature': header }, tampered)).rejects.toMatchObject({ reason: 'invalid_signature' });
    const old = String(Math.floor(Date.now() / 1000) - 3600);
    await expect(reject({ 'gateway-a-signature': `t=${old},v1=${sign(CREDENTIALS.gateway_a.webhookSecret, old, genuine.rawBody)}` })).rejects.toMatchObject({
      reason: 'stale_timestamp',
    });
  });

  it('a genuinely signed body that is not an event is malformed_payload; an unknown type is ignored', async () => {
    const signed = (body: string) => {
      const t = String(Math.floor(Date.now() / 1000));
      const v1 = createHmac('sha256', CREDENTIALS.gateway_a.webhookSecret).update(`${t}.${body}`).digest('hex');
      return { headers: { 'Gateway-A-Signature': `t=${t},v1=${v1}` }, rawBody: Buffer.from(body) };
    };
    await expect(gw.adapter.parseWebhook(signed('not json'))).rejects.toMatchObject({ reason: 'malformed_payload' });
    await expect(gw.adapter.parseWebhook(signed('{"id":"evt_1","type":"payment.updated","created":1,"data":{"object":{}}}'))).rejects.toMatchObject({
      reason: 'malformed_payload',
    });
    await expect(gw.adapter.parseWebhook(signed('{"id":"evt_2","type":"payout.created","created":1,"data":{"object":{}}}'))).resolves.toEqual([]);
  });

  it('replays the last webhooks byte for byte, and in reverse order on demand', async () => {
    const payment = await gw.adapter.createPayment({ idempotencyKey: key(), amount: 990, method: 'card', customer: CUSTOMER });
    await gw.sim.setPaymentStatus(payment.gatewayRef, 'processing');
    await gw.sim.payPayment(payment.gatewayRef);
    const [processing, paid] = receiver.received.slice(-2).map((hook) => hook.rawBody.toString('utf8'));

    await gw.sim.replayWebhooks({ last: 2, reverse: true });
    expect(receiver.received.slice(-2).map((hook) => hook.rawBody.toString('utf8'))).toEqual([paid, processing]);
    const replayed = await gw.adapter.parseWebhook(receiver.received.at(-1)!);
    expect(replayed).toMatchObject([{ kind: 'payment_status', payment: { status: 'processing' } }]);
  });
});
