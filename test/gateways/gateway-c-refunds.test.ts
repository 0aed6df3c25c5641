/**
 * gateway_c refunds, adapter against its simulator over real sockets: a
 * card charge is given back only in full (a partial amount is unsupported
 * before any call, and the gateway refuses one too), single links and
 * subscription cycle charges, settlement and failure by control, and the
 * signed `refund.updated` notification. Faults: refund-faults.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { request } from 'undici';
import { CREDENTIALS, CUSTOMER, expectApiError, subscriptionInput } from '../support/gateway-harness';
import { useRefundHarness } from '../support/refund-harness';

const h = useRefundHarness('gateway_c', { keyPrefix: 'c-refund', reason: 'duplicate order' });
const { key, refundOf, lastEvents } = h;
/** gateway_c takes cards only. */
const paid = (amount?: number) => h.paid('card', amount);
const AUTH = { 'x-api-key': CREDENTIALS.gateway_c.apiKey, 'x-api-secret': CREDENTIALS.gateway_c.apiSecret };

describe('gateway_c refunds', () => {
  it('a full refund of a paid link is pending, then settled: the read and the signed notification say succeeded', async () => {
    const payment = await paid();
    const refund = await h.gw.adapter.createRefund(refundOf(payment));
    expect(refund).toMatchObject({ paymentRef: payment.gatewayRef, status: 'pending', rawStatus: 'pending', amount: 10_000, failureReason: null });
    expect(refund.gatewayRef).toMatch(/^rf_/);
    h.receiver.received.length = 0;

    await h.gw.sim.settleRefund(refund.gatewayRef);
    expect(await h.gw.adapter.getRefund(refund.gatewayRef, payment.gatewayRef)).toMatchObject({ status: 'succeeded' });
    const [event] = await lastEvents();
    expect(event).toMatchObject({ kind: 'refund_status', eventId: expect.stringMatching(/^wh_/), refund: { gatewayRef: refund.gatewayRef, paymentRef: payment.gatewayRef, status: 'succeeded' } });
    expect(Date.parse(event!.occurredAt!)).toBeGreaterThan(Date.now() - 60_000);

    const genuine = h.receiver.received.at(-1)!;
    const forged = createHmac('sha256', 'whsec_wrong_secret').update(genuine.rawBody).digest('base64');
    await expect(h.gw.adapter.parseWebhook({ headers: { 'x-signature-sha256': forged }, rawBody: genuine.rawBody })).rejects.toMatchObject({ reason: 'invalid_signature' });
  });

  it('a partial refund is unsupported (501 not_implemented) before any call; the gateway itself refuses one too', async () => {
    const payment = await paid(5_000);
    const calls = h.gw.sim.stats().calls.createRefund ?? 0;
    await expectApiError(h.gw.adapter.createRefund(refundOf(payment, 2_500)), 'not_implemented', { action: 'refund', provider: 'gateway_c' });
    expect(h.gw.sim.stats().calls.createRefund ?? 0).toBe(calls);

    const response = await request(`${h.gw.sim.url}/v2/refunds`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json', 'x-idempotency-key': key() },
      body: JSON.stringify({ checkout_link_id: payment.gatewayRef, amount_cents: 2_500 }),
    });
    expect(response.statusCode).toBe(422);
    expect(await response.body.json()).toMatchObject({ code: 'validation_failed', errors: [{ field: 'amount_cents', message: expect.stringContaining('Partial') }] });
  });

  it('a second full refund is refused at amount; after a failed one the charge is refundable again', async () => {
    const payment = await paid(3_000);
    const first = await h.gw.adapter.createRefund(refundOf(payment));
    const again = await expectApiError(h.gw.adapter.createRefund(refundOf(payment)), 'invalid_input');
    expect(again.extra.issues).toEqual([{ path: ['amount'], message: expect.stringContaining('already refunded') }]);

    await h.gw.sim.failRefund(first.gatewayRef);
    expect(await lastEvents()).toMatchObject([{ kind: 'refund_status', refund: { gatewayRef: first.gatewayRef, status: 'failed', failureReason: expect.stringContaining('card issuer') } }]);
    await expect(h.gw.adapter.createRefund(refundOf(payment))).resolves.toMatchObject({ status: 'pending' });
  });

  it('an unpaid link is refused; an unknown one or an unknown refund is missing_gateway_ref', async () => {
    const open = await h.gw.adapter.createPayment({ idempotencyKey: key(), amount: 900, method: 'card', customer: CUSTOMER });
    const error = await expectApiError(h.gw.adapter.createRefund(refundOf(open)), 'invalid_input');
    expect(error.extra.issues).toEqual([{ path: [], message: expect.stringContaining('not paid') }]);
    await expectApiError(h.gw.adapter.createRefund({ ...refundOf(open), paymentRef: 'pl_nope' }), 'missing_gateway_ref');
    await expectApiError(h.gw.adapter.getRefund('rf_nope', open.gatewayRef), 'missing_gateway_ref');
  });

  it('a subscription cycle charge (ch_) is refunded as itself; settled at once when the sandbox says so', async () => {
    const created = await h.gw.adapter.createSubscription(subscriptionInput('gateway_c', key()));
    const { subscriptionRef } = await h.gw.sim.completeCheckout(created.gatewayRef);
    const { paymentRef } = await h.gw.sim.renewSubscription(subscriptionRef);
    const charge = await h.gw.adapter.getPayment(paymentRef!);
    await h.gw.sim.setRefundSettlement('at-once');
    const refund = await h.gw.adapter.createRefund(refundOf(charge));
    expect(refund).toMatchObject({ paymentRef: charge.gatewayRef, status: 'succeeded', amount: 2990 });
    expect(await lastEvents()).toMatchObject([{ kind: 'refund_status', refund: { gatewayRef: refund.gatewayRef, status: 'succeeded' } }]);
  });

  it('the same idempotency key finds the same refund', async () => {
    const payment = await paid();
    const before = h.gw.sim.stats().created.refunds;
    const input = refundOf(payment);
    const first = await h.gw.adapter.createRefund(input);
    expect((await h.gw.adapter.createRefund(input)).gatewayRef).toBe(first.gatewayRef);
    expect(h.gw.sim.stats().created.refunds).toBe(before + 1);
  });
});
