/** The `/_sim/` control API over HTTP, the hosted checkout pages and the simulators' own auth. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { GATEWAY_NAMES } from '../../server/contract/enums';
import { CUSTOMER, expectApiError, PATIENT_TIMEOUTS, startGateway, subscriptionInput, type GatewayUnderTest } from '../support/gateway-harness';
import { startWebhookReceiver, type WebhookReceiver } from '../support/gateway-webhook-receiver';

async function call(base: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown) {
  const response = await request(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.body.text();
  return { status: response.statusCode, text, json: text && response.headers['content-type']?.toString().includes('json') ? (JSON.parse(text) as Record<string, unknown>) : null };
}

describe.each(GATEWAY_NAMES)('%s control API over HTTP', (name) => {
  let gw: GatewayUnderTest;
  let receiver: WebhookReceiver;
  let seq = 0;
  const key = () => `ctl-${name}-${++seq}`;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    gw = await startGateway(name, { timeouts: PATIENT_TIMEOUTS });
  });
  afterAll(async () => {
    await gw.close();
    await receiver.close();
  });

  it('drives a card payment to paid and declined', async () => {
    const paid = await gw.adapter.createPayment({ idempotencyKey: key(), amount: 100, method: 'card', customer: CUSTOMER });
    expect((await call(gw.sim.url, 'POST', `/_sim/payments/${paid.gatewayRef}/pay`, { card: { brand: 'visa', last4: '1111' } })).status).toBe(200);
    expect(await gw.adapter.getPayment(paid.gatewayRef)).toMatchObject({ status: 'paid', card: { last4: '1111' } });
    const declined = await gw.adapter.createPayment({ idempotencyKey: key(), amount: 100, method: 'card', customer: CUSTOMER });
    await call(gw.sim.url, 'POST', `/_sim/payments/${declined.gatewayRef}/decline`);
    expect((await gw.adapter.getPayment(declined.gatewayRef)).status).toBe('failed');
    // A final payment cannot be moved again; an unknown one is 404.
    expect((await call(gw.sim.url, 'POST', `/_sim/payments/${paid.gatewayRef}/expire`)).status).toBe(409);
    expect((await call(gw.sim.url, 'POST', '/_sim/payments/nope/pay')).status).toBe(404);
  });

  it('injects faults, counts calls and resources', async () => {
    const injected = await call(gw.sim.url, 'POST', '/_sim/faults', { operation: 'getSubscription', fault: { kind: 'server_error', status: 502 }, times: 1 });
    expect(injected.status).toBe(200);
    const sub = await gw.adapter.createSubscription(subscriptionInput(name, key()));
    await expectApiError(gw.adapter.getSubscription(sub.gatewayRef), 'gateway_error', { provider: name });
    await expect(gw.adapter.getSubscription(sub.gatewayRef)).resolves.toMatchObject({ gatewayRef: sub.gatewayRef });

    await call(gw.sim.url, 'POST', '/_sim/faults', { operation: 'getSubscription', fault: { kind: 'server_error' }, times: 5 });
    await call(gw.sim.url, 'DELETE', '/_sim/faults');
    await expect(gw.adapter.getSubscription(sub.gatewayRef)).resolves.toMatchObject({ gatewayRef: sub.gatewayRef });

    const stats = await call(gw.sim.url, 'GET', '/_sim/stats');
    expect(stats.json).toMatchObject({ created: { subscriptions: 1 }, calls: { createSubscription: 1, getSubscription: 3 } });
    expect((await call(gw.sim.url, 'POST', '/_sim/faults', { operation: 'refund', fault: { kind: 'hang' } })).status).toBe(400);
  });

  it('drives subscription outcomes and webhook delivery, replay and log', async () => {
    expect((await call(gw.sim.url, 'PUT', '/_sim/webhooks/url', { url: receiver.url })).status).toBe(200);
    const created = await gw.adapter.createSubscription(subscriptionInput(name, key(), 7));
    const completed = await call(gw.sim.url, 'POST', `/_sim/subscriptions/${created.gatewayRef}/complete-checkout`);
    const ref = (completed.json as { subscriptionRef: string }).subscriptionRef;
    await call(gw.sim.url, 'POST', `/_sim/subscriptions/${ref}/end-trial`);
    const renewed = await call(gw.sim.url, 'POST', `/_sim/subscriptions/${ref}/renew`);
    expect(renewed.json).toMatchObject({ paymentRef: expect.any(String) });
    await call(gw.sim.url, 'POST', `/_sim/subscriptions/${ref}/charge-failure`);
    await call(gw.sim.url, 'POST', `/_sim/subscriptions/${ref}/past-due`);
    expect(await gw.adapter.getSubscription(ref)).toMatchObject({ status: 'past_due' });

    const count = receiver.received.length;
    expect(count).toBeGreaterThanOrEqual(4);
    const log = await call(gw.sim.url, 'GET', '/_sim/webhooks');
    const deliveries = (log.json as { deliveries: { attempts: { status: number }[] }[] }).deliveries;
    expect(deliveries.at(-1)?.attempts.at(-1)?.status).toBe(200);
    expect((await call(gw.sim.url, 'POST', '/_sim/webhooks/replay', { last: 2, reverse: true })).json).toEqual({ replayed: 2 });
    expect(receiver.received).toHaveLength(count + 2);
    expect(receiver.received[count]!.rawBody.equals(receiver.received[count - 1]!.rawBody)).toBe(true);
  });

  it('settles, fails and forces refunds, and switches settlement, over HTTP', async () => {
    const paid = async () => {
      const payment = await gw.adapter.createPayment({ idempotencyKey: key(), amount: 1000, method: 'card', customer: CUSTOMER });
      await call(gw.sim.url, 'POST', `/_sim/payments/${payment.gatewayRef}/pay`);
      return payment;
    };
    const refundOf = (payment: { gatewayRef: string }) =>
      gw.adapter.createRefund({ idempotencyKey: key(), paymentRef: payment.gatewayRef, method: 'card', amount: 1000, paymentAmount: 1000 });

    const first = await paid();
    const failed = await refundOf(first);
    expect((await call(gw.sim.url, 'POST', `/_sim/refunds/${failed.gatewayRef}/fail`, { reason: 'issuer said no' })).status).toBe(200);
    expect(await gw.adapter.getRefund(failed.gatewayRef, first.gatewayRef)).toMatchObject({ status: 'failed', failureReason: 'issuer said no' });
    // No longer pending: 409; unknown: 404; a bad body: 400.
    expect((await call(gw.sim.url, 'POST', `/_sim/refunds/${failed.gatewayRef}/settle`)).status).toBe(409);
    expect((await call(gw.sim.url, 'POST', '/_sim/refunds/nope/settle')).status).toBe(404);
    expect((await call(gw.sim.url, 'POST', `/_sim/refunds/${failed.gatewayRef}/status`, {})).status).toBe(400);

    const settled = await refundOf(first);
    expect((await call(gw.sim.url, 'POST', `/_sim/refunds/${settled.gatewayRef}/settle`)).status).toBe(200);
    expect(await gw.adapter.getRefund(settled.gatewayRef, first.gatewayRef)).toMatchObject({ status: 'succeeded' });
    expect((await call(gw.sim.url, 'POST', `/_sim/refunds/${settled.gatewayRef}/status`, { status: 'SOMETHING_NEW' })).status).toBe(200);
    expect(await gw.adapter.getRefund(settled.gatewayRef, first.gatewayRef)).toMatchObject({ rawStatus: 'SOMETHING_NEW', status: 'pending', statusKnown: false });

    expect((await call(gw.sim.url, 'PUT', '/_sim/refunds/settlement', { mode: 'soon' })).status).toBe(400);
    expect((await call(gw.sim.url, 'PUT', '/_sim/refunds/settlement', { mode: 'at-once' })).status).toBe(200);
    expect(await refundOf(await paid())).toMatchObject({ status: 'succeeded' });
    expect((await call(gw.sim.url, 'PUT', '/_sim/refunds/settlement', { mode: 'later' })).status).toBe(200);
    expect(await refundOf(await paid())).toMatchObject({ status: 'pending' });
    expect((await call(gw.sim.url, 'GET', '/_sim/stats')).json).toMatchObject({ created: { refunds: 4 }, calls: { createRefund: 4 } });
  });

  it('serves the hosted checkout page a checkoutUrl points at', async () => {
    const payment = await gw.adapter.createPayment({ idempotencyKey: key(), amount: 100, method: 'card', customer: CUSTOMER });
    const page = await request(payment.checkoutUrl!);
    const html = await page.body.text();
    expect(page.statusCode).toBe(200);
    // The card form posts back to the page itself (hosted-checkout.test.ts drives it).
    expect(html).toContain(`<form method="post" action="${new URL(payment.checkoutUrl!).pathname}"`);
  });

  it('refuses API calls without its credentials', async () => {
    const paths = { gateway_a: '/v1/payments/x', gateway_b: '/api/v3/cobrancas/x', gateway_c: '/v2/charges/x' };
    expect((await call(gw.sim.url, 'GET', paths[name])).status).toBe(401);
  });
});
