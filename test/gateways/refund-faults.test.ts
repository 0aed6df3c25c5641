/**
 * Faults on refund calls, on every gateway and each refund kind it has, over
 * real sockets: a timeout leaves the refund unknown and the retry with the
 * same key finds the one refund; a dropped answer likewise; a refusal lands
 * at `amount`; a 5xx makes nothing; a hung read is cut by the timeout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayName } from '../../server/contract/enums';
import type { CreateRefundInput, PaymentSnapshot } from '../../server/gateways/adapter';
import { CUSTOMER, expectApiError, settledWithin, startGateway, type GatewayUnderTest } from '../support/gateway-harness';

/** Long enough that a busy machine's answer is not taken for a timeout, short against the injected latency. */
const TIMEOUTS = { connectMs: 2_000, totalMs: 1_500 };
const LATE_MS = 4_000;
const BOUND_MS = 8_000;

const KINDS: { gateway: GatewayName; method: 'pix' | 'card' }[] = [
  { gateway: 'gateway_a', method: 'card' },
  { gateway: 'gateway_a', method: 'pix' },
  { gateway: 'gateway_b', method: 'card' },
  { gateway: 'gateway_b', method: 'pix' },
  { gateway: 'gateway_c', method: 'card' },
];

describe.each(KINDS)('$gateway $method refund faults', ({ gateway, method }) => {
  let gw: GatewayUnderTest;
  let seq = 0;
  const key = () => `refund-fault-${gateway}-${method}-${++seq}`;
  // gateway_c refunds only in full: every refund here is of the whole payment.
  const AMOUNT = 1_200;

  beforeAll(async () => {
    gw = await startGateway(gateway, { timeouts: TIMEOUTS });
  });
  afterAll(async () => {
    await gw.close();
  });

  async function paid(): Promise<PaymentSnapshot> {
    const payment = await gw.adapter.createPayment({ idempotencyKey: key(), amount: AMOUNT, method, customer: CUSTOMER });
    await gw.sim.payPayment(payment.gatewayRef);
    return payment;
  }
  const refundOf = (payment: PaymentSnapshot): CreateRefundInput => ({ idempotencyKey: key(), paymentRef: payment.gatewayRef, method, amount: AMOUNT, paymentAmount: AMOUNT });

  it('a timeout leaves the refund unknown (gateway_error); the retry with the same key finds the one refund', async () => {
    const payment = await paid();
    const before = gw.sim.stats().created.refunds;
    const input = refundOf(payment);
    // Answers long after the adapter gave up: the gateway made the refund, the caller never heard.
    gw.sim.injectFault('createRefund', { kind: 'latency', ms: LATE_MS });
    const result = await settledWithin(gw.adapter.createRefund(input), BOUND_MS);
    expect(result.status).toBe('rejected');
    await expectApiError(Promise.reject((result as PromiseRejectedResult).reason), 'gateway_error', { provider: gateway });
    const deadline = Date.now() + BOUND_MS;
    while (gw.sim.stats().created.refunds === before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(gw.sim.stats().created.refunds).toBe(before + 1);

    const calls = gw.sim.stats().calls.createRefund ?? 0;
    const retried = await gw.adapter.createRefund(input);
    expect(retried).toMatchObject({ paymentRef: payment.gatewayRef, amount: AMOUNT, status: 'pending' });
    expect(gw.sim.stats().calls.createRefund).toBe(calls + 1);
    expect(gw.sim.stats().created.refunds).toBe(before + 1);
  });

  it('a dropped answer: created, the answer lost; the retry finds it', async () => {
    const payment = await paid();
    const before = gw.sim.stats().created.refunds;
    const input = refundOf(payment);
    gw.sim.injectFault('createRefund', { kind: 'drop_response' });
    await expectApiError(gw.adapter.createRefund(input), 'gateway_error', { provider: gateway });
    expect(gw.sim.stats().created.refunds).toBe(before + 1);
    const retried = await gw.adapter.createRefund(input);
    expect(await gw.adapter.getRefund(retried.gatewayRef, payment.gatewayRef)).toMatchObject({ gatewayRef: retried.gatewayRef, amount: AMOUNT });
    expect(gw.sim.stats().created.refunds).toBe(before + 1);
  });

  it('a refusal is invalid_input at amount; a 5xx is gateway_error; neither makes a refund', async () => {
    const payment = await paid();
    const before = gw.sim.stats().created.refunds;
    gw.sim.injectFault('createRefund', { kind: 'validation' });
    const refused = await expectApiError(gw.adapter.createRefund(refundOf(payment)), 'invalid_input');
    expect(refused.extra.issues).toEqual([{ path: ['amount'], message: expect.any(String) }]);
    gw.sim.injectFault('createRefund', { kind: 'server_error', status: 503 });
    await expectApiError(gw.adapter.createRefund(refundOf(payment)), 'gateway_error', { provider: gateway });
    expect(gw.sim.stats().created.refunds).toBe(before);
  });

  it('a read that hangs is cut by the timeout; a read answered 404 is missing_gateway_ref', async () => {
    const payment = await paid();
    const refund = await gw.adapter.createRefund(refundOf(payment));
    gw.sim.injectFault('getRefund', { kind: 'hang' });
    const result = await settledWithin(gw.adapter.getRefund(refund.gatewayRef, payment.gatewayRef), BOUND_MS);
    await expectApiError(Promise.reject((result as PromiseRejectedResult).reason), 'gateway_error', { provider: gateway });
    gw.sim.injectFault('getRefund', { kind: 'client_error', status: 404 });
    await expectApiError(gw.adapter.getRefund(refund.gatewayRef, payment.gatewayRef), 'missing_gateway_ref');
    await expect(gw.adapter.getRefund(refund.gatewayRef, payment.gatewayRef)).resolves.toMatchObject({ gatewayRef: refund.gatewayRef });
  });
});
