/**
 * gateway_a refunds, adapter against its simulator over real sockets: card
 * refunds under an Idempotency-Key, Pix devoluções on the end-to-end id,
 * settlement and failure by control, the signed notifications, refusals.
 * Faults on refund calls: refund-faults.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { CREDENTIALS, CUSTOMER, expectApiError } from '../support/gateway-harness';
import { useRefundHarness } from '../support/refund-harness';

const h = useRefundHarness('gateway_a', { keyPrefix: 'a-refund', reason: 'customer asked' });
const { key, paid, refundOf, lastEvents } = h;

/** The gateway's own wire object, read with its credentials (what the adapter does not surface). */
async function wire(path: string): Promise<Record<string, unknown>> {
  const response = await request(`${h.gw.sim.url}${path}`, { headers: { authorization: `Bearer ${CREDENTIALS.gateway_a.secretKey}` } });
  return (await response.body.json()) as Record<string, unknown>;
}

describe('card refunds', () => {
  it('a full refund is pending, then settled by the gateway: the read and the signed notification say succeeded', async () => {
    const payment = await paid('card');
    const refund = await h.gw.adapter.createRefund(refundOf(payment, 10_000));
    expect(refund).toMatchObject({ paymentRef: payment.gatewayRef, status: 'pending', rawStatus: 'pending', statusKnown: true, amount: 10_000, failureReason: null });
    expect(refund.gatewayRef).toMatch(/^re_/);
    h.receiver.received.length = 0;

    await h.gw.sim.settleRefund(refund.gatewayRef);
    expect(await h.gw.adapter.getRefund(refund.gatewayRef, payment.gatewayRef)).toMatchObject({ status: 'succeeded', rawStatus: 'succeeded' });
    expect(h.receiver.received).toHaveLength(1);
    const [event] = await lastEvents();
    expect(event).toMatchObject({ kind: 'refund_status', eventId: expect.stringMatching(/^evt_/), refund: { gatewayRef: refund.gatewayRef, paymentRef: payment.gatewayRef, status: 'succeeded', amount: 10_000 } });
    expect(Date.parse(event!.occurredAt!)).toBeGreaterThan(Date.now() - 60_000);

    // The notification is signed over its bytes: a tampered copy is refused.
    const genuine = h.receiver.received.at(-1)!;
    const tampered = Buffer.from(genuine.rawBody.toString('utf8').replace('"succeeded"', '"failed"'));
    await expect(h.gw.adapter.parseWebhook({ headers: genuine.headers, rawBody: tampered })).rejects.toMatchObject({ reason: 'invalid_signature' });
  });

  it('two partial refunds sum to the amount; a third is refused at amount, as is one above what is left', async () => {
    const payment = await paid('card', 5_000);
    await h.gw.adapter.createRefund(refundOf(payment, 2_000));
    const over = await expectApiError(h.gw.adapter.createRefund(refundOf(payment, 3_001)), 'invalid_input');
    expect(over.extra.issues).toEqual([{ path: ['amount'], message: expect.stringContaining('more than') }]);
    await h.gw.adapter.createRefund(refundOf(payment, 3_000));
    const third = await expectApiError(h.gw.adapter.createRefund(refundOf(payment, 1)), 'invalid_input');
    expect(third.extra.issues).toEqual([{ path: ['amount'], message: expect.stringContaining('already refunded') }]);
  });

  it('a refund of an unpaid payment is refused by the gateway', async () => {
    const open = await h.gw.adapter.createPayment({ idempotencyKey: key(), amount: 900, method: 'card', customer: CUSTOMER });
    const error = await expectApiError(h.gw.adapter.createRefund(refundOf(open, 900)), 'invalid_input');
    expect(error.extra.issues).toEqual([{ path: [], message: expect.stringContaining('not paid') }]);
  });

  it('the fail control fails a pending refund with the gateway reason, and its amount is refundable again', async () => {
    const payment = await paid('card', 4_000);
    const refund = await h.gw.adapter.createRefund(refundOf(payment, 4_000));
    await h.gw.sim.failRefund(refund.gatewayRef);
    const [event] = await lastEvents();
    expect(event).toMatchObject({ kind: 'refund_status', refund: { gatewayRef: refund.gatewayRef, status: 'failed', failureReason: expect.stringContaining('card issuer') } });
    expect(await h.gw.adapter.getRefund(refund.gatewayRef, payment.gatewayRef)).toMatchObject({ status: 'failed', failureReason: expect.any(String) });
    // Settled or failed: a control cannot move it again.
    await expect(h.gw.sim.settleRefund(refund.gatewayRef)).rejects.toMatchObject({ status: 409 });
    await expect(h.gw.adapter.createRefund(refundOf(payment, 4_000))).resolves.toMatchObject({ status: 'pending' });
  });

  it('settled at once when the sandbox is told so: the refund call already answers succeeded', async () => {
    await h.gw.sim.setRefundSettlement('at-once');
    const payment = await paid('card');
    expect(await h.gw.adapter.createRefund(refundOf(payment, 1_000))).toMatchObject({ status: 'succeeded' });
    expect(await lastEvents()).toMatchObject([{ kind: 'refund_status', refund: { status: 'succeeded', amount: 1_000 } }]);
  });

  it('the same idempotency key finds the same refund: one refund, one per key', async () => {
    const payment = await paid('card');
    const before = h.gw.sim.stats().created.refunds;
    const input = refundOf(payment, 1_500);
    const first = await h.gw.adapter.createRefund(input);
    const second = await h.gw.adapter.createRefund({ ...input, amount: 9_999 });
    expect(second).toMatchObject({ gatewayRef: first.gatewayRef, amount: 1_500 });
    expect(h.gw.sim.stats().created.refunds).toBe(before + 1);
  });

  it('an unknown refund, or a refund of an unknown payment, is missing_gateway_ref', async () => {
    await expectApiError(h.gw.adapter.getRefund('re_does_not_exist', 'pi_x'), 'missing_gateway_ref');
    await expectApiError(h.gw.adapter.createRefund({ idempotencyKey: key(), paymentRef: 'pi_nope', method: 'card', amount: 1, paymentAmount: 1 }), 'missing_gateway_ref');
  });
});

describe('Pix devoluções', () => {
  it('a paid Pix has an end-to-end id; its devolução is named by it and an id derived from the key', async () => {
    const payment = await paid('pix', 8_000);
    const e2e = ((await wire(`/v1/payments/${payment.gatewayRef}`)).pix as { end_to_end_id: string }).end_to_end_id;
    expect(e2e).toMatch(/^E99990001\d{12}[A-Za-z0-9]{11}$/);
    const calls = h.gw.sim.stats().calls.createRefund ?? 0;
    const refund = await h.gw.adapter.createRefund(refundOf(payment, 8_000));
    expect(h.gw.sim.stats().calls.createRefund).toBe(calls + 1);
    expect(refund).toMatchObject({ paymentRef: payment.gatewayRef, status: 'pending', rawStatus: 'EM_PROCESSAMENTO', amount: 8_000 });
    expect(refund.gatewayRef).toMatch(/^[0-9a-f]{35}$/);
    const devolucao = await wire(`/v1/pix/${e2e}/devolucao/${refund.gatewayRef}`);
    expect(devolucao).toMatchObject({ object: 'pix_devolucao', end_to_end_id: e2e, payment: payment.gatewayRef, rtr_id: expect.stringMatching(/^D99990001\d{12}[A-Za-z0-9]{11}$/) });

    // The operator may name it by its rtrId.
    const settled = await request(`${h.gw.sim.url}/_sim/refunds/${devolucao.rtr_id as string}/settle`, { method: 'POST' });
    expect(settled.statusCode).toBe(200);
    await settled.body.dump();
    expect(await h.gw.adapter.getRefund(refund.gatewayRef, payment.gatewayRef)).toMatchObject({ status: 'succeeded', rawStatus: 'DEVOLVIDO' });
    expect(await lastEvents()).toMatchObject([{ kind: 'refund_status', refund: { gatewayRef: refund.gatewayRef, status: 'succeeded', rawStatus: 'DEVOLVIDO' } }]);
  });

  it('once the paid notification was read, a devolução is one call at the gateway: the end-to-end id is remembered', async () => {
    const payment = await h.gw.adapter.createPayment({ idempotencyKey: key(), amount: 600, method: 'pix', customer: CUSTOMER });
    await h.gw.sim.payPayment(payment.gatewayRef);
    expect(await lastEvents()).toMatchObject([{ kind: 'payment_status', payment: { status: 'paid' } }]);
    const before = h.gw.sim.stats().calls;
    const refund = await h.gw.adapter.createRefund(refundOf(payment, 600));
    const after = h.gw.sim.stats().calls;
    expect({ reads: (after.getPayment ?? 0) - (before.getPayment ?? 0), refunds: (after.createRefund ?? 0) - (before.createRefund ?? 0) }).toEqual({ reads: 0, refunds: 1 });
    expect(refund).toMatchObject({ status: 'pending', amount: 600 });
  });

  it('two partial devoluções sum to the amount; a third is refused at amount', async () => {
    const payment = await paid('pix', 3_000);
    await h.gw.adapter.createRefund(refundOf(payment, 1_000));
    await h.gw.adapter.createRefund(refundOf(payment, 2_000));
    const third = await expectApiError(h.gw.adapter.createRefund(refundOf(payment, 500)), 'invalid_input');
    expect(third.extra.issues).toEqual([{ path: ['amount'], message: expect.any(String) }]);
  });

  it('NAO_REALIZADO by control is failed, with the reason given', async () => {
    const payment = await paid('pix', 3_000);
    const refund = await h.gw.adapter.createRefund(refundOf(payment, 3_000));
    await h.gw.sim.failRefund(refund.gatewayRef, 'Conta do pagador encerrada');
    expect(await lastEvents()).toMatchObject([{ kind: 'refund_status', refund: { status: 'failed', rawStatus: 'NAO_REALIZADO', failureReason: 'Conta do pagador encerrada' } }]);
  });

  it('an unpaid Pix is refused without a refund call: it has no end-to-end id yet', async () => {
    const open = await h.gw.adapter.createPayment({ idempotencyKey: key(), amount: 700, method: 'pix', customer: CUSTOMER });
    const calls = h.gw.sim.stats().calls.createRefund ?? 0;
    const error = await expectApiError(h.gw.adapter.createRefund(refundOf(open, 700)), 'invalid_input');
    expect(error.extra.issues).toEqual([{ path: [], message: expect.stringContaining('not paid') }]);
    expect(h.gw.sim.stats().calls.createRefund ?? 0).toBe(calls);
    await expectApiError(h.gw.adapter.getRefund('0'.repeat(35), open.gatewayRef), 'missing_gateway_ref');
  });

  it('repeating the PUT with the same key answers the same devolução', async () => {
    const payment = await paid('pix');
    const before = h.gw.sim.stats().created.refunds;
    const input = refundOf(payment, 2_500);
    const first = await h.gw.adapter.createRefund(input);
    expect(await h.gw.adapter.createRefund(input)).toMatchObject({ gatewayRef: first.gatewayRef, amount: 2_500 });
    expect(h.gw.sim.stats().created.refunds).toBe(before + 1);
    await expectApiError(h.gw.adapter.getRefund('f'.repeat(35), payment.gatewayRef), 'missing_gateway_ref');
  });
});
