/** gateway_b adapter against its simulator over real sockets: every operation, its webhooks, their authenticity. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { pixTxid } from '../../server/sandbox/simulator/brcode';
import { CREDENTIALS, CUSTOMER, expectApiError, settledWithin, startGateway, subscriptionInput, type GatewayUnderTest } from '../support/gateway-harness';
import { startWebhookReceiver, type WebhookReceiver } from '../support/gateway-webhook-receiver';

let gw: GatewayUnderTest;
let receiver: WebhookReceiver;
let seq = 0;
const key = () => `b-${++seq}`;
const auth = `Basic ${Buffer.from(`${CREDENTIALS.gateway_b.apiKey}:`).toString('base64')}`;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  gw = await startGateway('gateway_b', { webhookUrl: receiver.url });
});
afterAll(async () => {
  await gw.close();
  await receiver.close();
});
beforeEach(async () => {
  gw.sim.clearFaults();
  await gw.sim.flushWebhooks();
  receiver.received.length = 0;
});

const eventsOf = async (index: number) => {
  await gw.sim.flushWebhooks();
  const hook = receiver.received.at(index);
  if (!hook) throw new Error('no webhook received');
  return gw.adapter.parseWebhook(hook);
};

describe('payments', () => {
  it('creates a Pix whose QR comes from the separate qrcode endpoint', async () => {
    const payment = await gw.adapter.createPayment({ idempotencyKey: key(), amount: 4_990, method: 'pix', customer: CUSTOMER });
    expect(payment).toMatchObject({ status: 'pending', rawStatus: 'PENDENTE', method: 'pix', amount: 4_990, checkoutUrl: null });
    expect(payment.gatewayRef).toMatch(/^cob_/);
    expect(payment.pix?.qrCode).toMatch(/^data:image\/png;base64,/);
    expect(payment.pix?.qrCodeText).toContain(pixTxid(payment.gatewayRef));
  });

  it.each([
    { title: 'fails', fault: { kind: 'server_error' as const } },
    { title: 'hangs', fault: { kind: 'hang' as const } },
  ])('when the QR endpoint $title, the create still succeeds without QR and a later getPayment recovers it', async ({ fault }) => {
    const before = gw.sim.stats().created.payments;
    gw.sim.injectFault('getPixQrCode', fault);
    const result = await settledWithin(gw.adapter.createPayment({ idempotencyKey: key(), amount: 100, method: 'pix', customer: CUSTOMER }), 3_000);
    expect(result.status).toBe('fulfilled');
    const payment = (result as PromiseFulfilledResult<Awaited<ReturnType<typeof gw.adapter.createPayment>>>).value;
    expect(payment).toMatchObject({ status: 'pending', pix: null });
    expect(gw.sim.stats().created.payments).toBe(before + 1);

    const synced = await gw.adapter.getPayment(payment.gatewayRef);
    expect(synced.pix?.qrCodeText).toContain(pixTxid(payment.gatewayRef));
  });

  it('an unknown ref is missing_gateway_ref: the gateway does not know it, and retrying will not help', async () => {
    await expectApiError(gw.adapter.getPayment('cob_does_not_exist'), 'missing_gateway_ref');
  });

  it('sends amounts as exact decimal reais and reads them back as the same cents', async () => {
    for (const amount of [1, 10, 99, 100, 1_999, 123_456_789_01]) {
      const payment = await gw.adapter.createPayment({ idempotencyKey: key(), amount, method: 'card', customer: CUSTOMER });
      expect(payment.amount).toBe(amount);
      const raw = await request(`${gw.sim.url}/api/v3/cobrancas/${payment.gatewayRef}`, { headers: { authorization: auth } });
      const body = (await raw.body.json()) as { valor: string };
      expect(body.valor).toBe(`${Math.trunc(amount / 100)}.${String(amount % 100).padStart(2, '0')}`);
    }
  });

  it('creates a card payment as a hosted checkout; the card is known once paid', async () => {
    const payment = await gw.adapter.createPayment({ idempotencyKey: key(), amount: 3000, method: 'card', installments: 24, customer: CUSTOMER });
    expect(payment.checkoutUrl).toMatch(/\/pagar\/cob_/);
    expect(payment.card).toBeNull();
    await gw.sim.payPayment(payment.gatewayRef, { brand: 'elo', last4: '1234' });
    expect(await gw.adapter.getPayment(payment.gatewayRef)).toMatchObject({ status: 'paid', rawStatus: 'CONFIRMADO', card: { brand: 'elo', last4: '1234' } });
  });

  it('refuses 25 installments as invalid_input on card.installments', async () => {
    const error = await expectApiError(
      gw.adapter.createPayment({ idempotencyKey: key(), amount: 3000, method: 'card', installments: 25, customer: CUSTOMER }),
      'invalid_input',
    );
    expect(error.extra.issues).toEqual([{ path: ['card', 'installments'], message: expect.stringContaining('24') }]);
  });

  it('dedupes on referenciaExterna', async () => {
    const input = { idempotencyKey: key(), amount: 100, method: 'pix' as const, customer: CUSTOMER };
    const before = gw.sim.stats().created.payments;
    const first = await gw.adapter.createPayment(input);
    expect((await gw.adapter.createPayment(input)).gatewayRef).toBe(first.gatewayRef);
    expect(gw.sim.stats().created.payments).toBe(before + 1);
  });

  it('has no payment cancel: not_implemented, without calling the gateway', async () => {
    expect(gw.adapter.capabilities.paymentCancel).toBe(false);
    const payment = await gw.adapter.createPayment({ idempotencyKey: key(), amount: 100, method: 'card', customer: CUSTOMER });
    await expectApiError(gw.adapter.cancelPayment(payment.gatewayRef), 'not_implemented', { action: 'cancel', provider: 'gateway_b' });
    expect(gw.sim.stats().calls.cancelPayment).toBeUndefined();
  });

  it('maps Pix received, declined and expired', async () => {
    const pix = await gw.adapter.createPayment({ idempotencyKey: key(), amount: 100, method: 'pix', customer: CUSTOMER });
    await gw.sim.payPayment(pix.gatewayRef);
    expect(await gw.adapter.getPayment(pix.gatewayRef)).toMatchObject({ status: 'paid', rawStatus: 'RECEBIDO', pix: null });
    const card = await gw.adapter.createPayment({ idempotencyKey: key(), amount: 100, method: 'card', customer: CUSTOMER });
    await gw.sim.declinePayment(card.gatewayRef);
    expect((await gw.adapter.getPayment(card.gatewayRef)).status).toBe('failed');
    const late = await gw.adapter.createPayment({ idempotencyKey: key(), amount: 100, method: 'pix', customer: CUSTOMER });
    await gw.sim.expirePayment(late.gatewayRef);
    expect((await gw.adapter.getPayment(late.gatewayRef)).status).toBe('expired');
  });
});

describe('subscriptions', () => {
  it('creates trialing and active subscriptions with their dates', async () => {
    const trial = await gw.adapter.createSubscription(subscriptionInput('gateway_b', key(), 14));
    expect(trial).toMatchObject({ status: 'trialing', rawStatus: 'EM_TESTE', cancelAtPeriodEnd: false });
    expect(trial.gatewayRef).toMatch(/^ass_/);
    expect(trial.trialEndsAt).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00.000Z$/);
    const active = await gw.adapter.createSubscription(subscriptionInput('gateway_b', key()));
    expect(active).toMatchObject({ status: 'active', trialEndsAt: null });
    expect(await gw.adapter.getSubscription(active.gatewayRef)).toEqual(active);
  });

  it('cancels at period end: status kept until the cycle ends, then canceled', async () => {
    const sub = await gw.adapter.createSubscription(subscriptionInput('gateway_b', key()));
    const marked = await gw.adapter.cancelSubscription(sub.gatewayRef, { atPeriodEnd: true });
    expect(marked).toMatchObject({ status: 'active', cancelAtPeriodEnd: true, canceledAt: null });

    expect(await gw.sim.renewSubscription(sub.gatewayRef)).toEqual({ paymentRef: null });
    expect(await eventsOf(-1)).toMatchObject([{ kind: 'subscription_status', subscription: { gatewayRef: sub.gatewayRef, status: 'canceled', rawStatus: 'ENCERRADA' } }]);
    const ended = await gw.adapter.getSubscription(sub.gatewayRef);
    expect(ended.canceledAt).not.toBeNull();
  });

  it('cancels immediately', async () => {
    const sub = await gw.adapter.createSubscription(subscriptionInput('gateway_b', key()));
    expect(await gw.adapter.cancelSubscription(sub.gatewayRef, { atPeriodEnd: false })).toMatchObject({ status: 'canceled', rawStatus: 'CANCELADA', nextBillingAt: null });
  });
});

describe('webhooks (thin, token-authenticated, confirmed by fetching)', () => {
  it('a paid charge reaches the receiver and parses to the fetched state', async () => {
    const payment = await gw.adapter.createPayment({ idempotencyKey: key(), amount: 100, method: 'pix', customer: CUSTOMER });
    await gw.sim.payPayment(payment.gatewayRef);
    expect(receiver.received).toHaveLength(1);
    expect(JSON.parse(receiver.received[0]!.rawBody.toString('utf8'))).toMatchObject({ evento: 'COBRANCA_ATUALIZADA', recursoId: payment.gatewayRef });
    expect(await eventsOf(0)).toMatchObject([{ kind: 'payment_status', payment: { gatewayRef: payment.gatewayRef, status: 'paid' } }]);
  });

  it('subscription charges arrive as charge notifications tied to the subscription', async () => {
    const sub = await gw.adapter.createSubscription(subscriptionInput('gateway_b', key(), 3));
    const { paymentRef } = await gw.sim.renewSubscription(sub.gatewayRef);
    // The charge, then the move from EM_TESTE to ATIVA.
    expect(receiver.received).toHaveLength(2);
    const [charge] = await eventsOf(0);
    expect(charge).toMatchObject({
      kind: 'subscription_charge',
      outcome: 'paid',
      subscriptionRef: sub.gatewayRef,
      payment: { gatewayRef: paymentRef, status: 'paid', amount: 2990, subscriptionRef: sub.gatewayRef, method: 'card' },
    });
    expect(charge?.kind === 'subscription_charge' && charge.nextBillingAt! > sub.nextBillingAt!).toBe(true);
    expect(await eventsOf(1)).toMatchObject([{ kind: 'subscription_status', subscription: { status: 'active' } }]);

    const failed = await gw.sim.failSubscriptionCharge(sub.gatewayRef);
    expect(await eventsOf(-1)).toMatchObject([{ kind: 'subscription_charge', outcome: 'failed', payment: { gatewayRef: failed.paymentRef, status: 'failed' } }]);
    await gw.sim.markPastDue(sub.gatewayRef);
    expect(await eventsOf(-1)).toMatchObject([{ kind: 'subscription_status', subscription: { status: 'past_due', rawStatus: 'INADIMPLENTE' } }]);
  });

  it('refuses a missing or wrong token', async () => {
    const payment = await gw.adapter.createPayment({ idempotencyKey: key(), amount: 100, method: 'pix', customer: CUSTOMER });
    await gw.sim.expirePayment(payment.gatewayRef);
    const genuine = receiver.received.at(-1)!;
    await expect(gw.adapter.parseWebhook({ headers: {}, rawBody: genuine.rawBody })).rejects.toMatchObject({ reason: 'missing_signature' });
    await expect(gw.adapter.parseWebhook({ headers: { 'x-webhook-token': 'token_b_guessed_value' }, rawBody: genuine.rawBody })).rejects.toMatchObject({
      reason: 'invalid_signature',
    });
  });

  it('trusts nothing in the body but the id: a lying notification reports the real state', async () => {
    const payment = await gw.adapter.createPayment({ idempotencyKey: key(), amount: 100, method: 'pix', customer: CUSTOMER });
    const lie = Buffer.from(
      JSON.stringify({ eventoId: 'evb_x', evento: 'COBRANCA_ATUALIZADA', recursoId: payment.gatewayRef, criadoEm: new Date().toISOString(), status: 'RECEBIDO' }),
    );
    const events = await gw.adapter.parseWebhook({ headers: { 'X-Webhook-Token': CREDENTIALS.gateway_b.webhookToken }, rawBody: lie });
    expect(events).toMatchObject([{ kind: 'payment_status', payment: { status: 'pending' } }]);
  });

  it('a notification it cannot confirm fails (the inbound edge asks the gateway to redeliver)', async () => {
    const body = Buffer.from(JSON.stringify({ eventoId: 'evb_y', evento: 'COBRANCA_ATUALIZADA', recursoId: 'cob_unknown', criadoEm: new Date().toISOString() }));
    const webhook = { headers: { 'x-webhook-token': CREDENTIALS.gateway_b.webhookToken }, rawBody: body };
    // The charge it names is unknown to the gateway itself.
    await expectApiError(gw.adapter.parseWebhook(webhook), 'missing_gateway_ref');
    gw.sim.injectFault('getPayment', { kind: 'server_error' });
    await expectApiError(gw.adapter.parseWebhook(webhook), 'gateway_error', { provider: 'gateway_b' });
    gw.sim.clearFaults();
  });

  it('replays duplicates with the same bytes', async () => {
    const payment = await gw.adapter.createPayment({ idempotencyKey: key(), amount: 100, method: 'card', customer: CUSTOMER });
    await gw.sim.payPayment(payment.gatewayRef);
    await gw.sim.replayWebhooks({ last: 1 });
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.rawBody.equals(receiver.received[0]!.rawBody)).toBe(true);
    // The same event, confirmed by fetching the charge; each reading is dated when it was fetched (the state it applies is of that moment).
    const undated = (events: Awaited<ReturnType<typeof eventsOf>>) => events.map(({ occurredAt: _fetchedAt, ...event }) => event);
    const [first, second] = [await eventsOf(0), await eventsOf(1)];
    expect(undated(second)).toEqual(undated(first));
    expect(Date.parse(second[0]!.occurredAt!)).toBeGreaterThanOrEqual(Date.parse(first[0]!.occurredAt!));
  });
});
