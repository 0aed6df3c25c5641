/**
 * gateway_b refunds, adapter against its simulator over real sockets:
 * estornos of card cobranças (deduplicated on referenciaExterna), Pix
 * devoluções on the endToEndId, amounts in decimal reais, settlement and
 * failure by control, and the thin notifications the adapter confirms by
 * fetching. Faults on refund calls: refund-faults.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { CREDENTIALS, CUSTOMER, expectApiError } from '../support/gateway-harness';
import { useRefundHarness } from '../support/refund-harness';

const h = useRefundHarness('gateway_b', { keyPrefix: 'b-refund', reason: 'produto devolvido' });
const { key, paid, refundOf, lastNotification } = h;
const basic = `Basic ${Buffer.from(`${CREDENTIALS.gateway_b.apiKey}:`).toString('base64')}`;

async function wire(path: string): Promise<Record<string, unknown>> {
  const response = await request(`${h.gw.sim.url}${path}`, { headers: { authorization: basic } });
  return (await response.body.json()) as Record<string, unknown>;
}

describe('estornos (card)', () => {
  it('an estorno is pending in reais on the wire, settled by the gateway; the thin notification is confirmed by fetching', async () => {
    const payment = await paid('card', 12_345);
    const refund = await h.gw.adapter.createRefund(refundOf(payment, 12_345));
    expect(refund).toMatchObject({ paymentRef: payment.gatewayRef, status: 'pending', rawStatus: 'SOLICITADO', amount: 12_345, failureReason: null });
    expect(refund.gatewayRef).toMatch(/^est_/);
    expect(await wire(`/api/v3/estornos/${refund.gatewayRef}`)).toMatchObject({ valor: '123.45', cobranca: payment.gatewayRef, motivo: 'produto devolvido' });
    h.receiver.received.length = 0;

    await h.gw.sim.settleRefund(refund.gatewayRef);
    const notification = await lastNotification();
    expect(JSON.parse(notification.rawBody.toString('utf8'))).toMatchObject({ evento: 'ESTORNO_ATUALIZADO', recursoId: refund.gatewayRef });
    const reads = h.gw.sim.stats().calls.getRefund ?? 0;
    const [event] = await h.gw.adapter.parseWebhook(notification);
    expect(h.gw.sim.stats().calls.getRefund).toBe(reads + 1);
    expect(event).toMatchObject({ kind: 'refund_status', eventId: expect.stringMatching(/^evb_/), refund: { gatewayRef: refund.gatewayRef, status: 'succeeded', rawStatus: 'ESTORNADO', amount: 12_345 } });
    expect(Date.parse(event!.occurredAt!)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('two partial estornos sum to the amount; a third is refused at amount, as is one above what is left', async () => {
    const payment = await paid('card', 5_000);
    await h.gw.adapter.createRefund(refundOf(payment, 2_000));
    const over = await expectApiError(h.gw.adapter.createRefund(refundOf(payment, 3_001)), 'invalid_input');
    expect(over.extra.issues).toEqual([{ path: ['amount'], message: expect.stringContaining('more than') }]);
    await h.gw.adapter.createRefund(refundOf(payment, 3_000));
    const third = await expectApiError(h.gw.adapter.createRefund(refundOf(payment, 1)), 'invalid_input');
    expect(third.extra.issues).toEqual([{ path: ['amount'], message: expect.stringContaining('already refunded') }]);
  });

  it('an estorno of an unpaid cobrança is refused; one of an unknown cobrança is missing', async () => {
    const open = await h.gw.adapter.createPayment({ idempotencyKey: key(), amount: 900, method: 'card', customer: CUSTOMER });
    const error = await expectApiError(h.gw.adapter.createRefund(refundOf(open, 900)), 'invalid_input');
    expect(error.extra.issues).toEqual([{ path: [], message: expect.stringContaining('not paid') }]);
    await expectApiError(h.gw.adapter.createRefund({ idempotencyKey: key(), paymentRef: 'cob_nope', method: 'card', amount: 1, paymentAmount: 1 }), 'missing_gateway_ref');
    await expectApiError(h.gw.adapter.getRefund('est_nope', 'cob_nope'), 'missing_gateway_ref');
  });

  it('the same referenciaExterna finds the same estorno', async () => {
    const payment = await paid('card');
    const before = h.gw.sim.stats().created.refunds;
    const input = refundOf(payment, 1_500);
    const first = await h.gw.adapter.createRefund(input);
    expect(await h.gw.adapter.createRefund({ ...input, amount: 9_000 })).toMatchObject({ gatewayRef: first.gatewayRef, amount: 1_500 });
    expect(h.gw.sim.stats().created.refunds).toBe(before + 1);
  });

  it('the fail control fails it with a reason; a replayed older notification still reports the present state', async () => {
    const payment = await paid('card', 4_000);
    const refund = await h.gw.adapter.createRefund(refundOf(payment, 4_000));
    await h.gw.sim.setRefundStatus(refund.gatewayRef, 'PROCESSANDO');
    const older = await lastNotification();
    await h.gw.sim.failRefund(refund.gatewayRef);
    expect(await h.gw.adapter.parseWebhook(await lastNotification())).toMatchObject([{ kind: 'refund_status', refund: { status: 'failed', rawStatus: 'FALHOU', failureReason: expect.any(String) } }]);
    // The notification carries no state: the fetch does, so the older one reads failed too.
    expect(await h.gw.adapter.parseWebhook(older)).toMatchObject([{ kind: 'refund_status', refund: { status: 'failed' } }]);
    // Its amount is refundable again.
    await expect(h.gw.adapter.createRefund(refundOf(payment, 4_000))).resolves.toMatchObject({ status: 'pending' });
  });

  it('a notification with the wrong token is refused before any fetch', async () => {
    const payment = await paid('card');
    const refund = await h.gw.adapter.createRefund(refundOf(payment, 100));
    await h.gw.sim.settleRefund(refund.gatewayRef);
    const genuine = await lastNotification();
    const reads = h.gw.sim.stats().calls.getRefund ?? 0;
    await expect(h.gw.adapter.parseWebhook({ headers: { 'x-webhook-token': 'token_b_wrong_0123456789' }, rawBody: genuine.rawBody })).rejects.toMatchObject({ reason: 'invalid_signature' });
    expect(h.gw.sim.stats().calls.getRefund ?? 0).toBe(reads);
  });
});

describe('Pix devoluções', () => {
  it('a received Pix has an endToEndId; its devolução, named by it and the key, settles and notifies with the endToEndId', async () => {
    const payment = await paid('pix', 8_000);
    const e2e = (await wire(`/api/v3/cobrancas/${payment.gatewayRef}`)).endToEndId as string;
    expect(e2e).toMatch(/^E99990002\d{12}[A-Za-z0-9]{11}$/);
    const refund = await h.gw.adapter.createRefund(refundOf(payment, 8_000));
    expect(refund).toMatchObject({ paymentRef: payment.gatewayRef, status: 'pending', rawStatus: 'EM_PROCESSAMENTO', amount: 8_000 });
    expect(refund.gatewayRef).toMatch(/^[0-9a-f]{35}$/);
    expect(await wire(`/api/v3/pix/${e2e}/devolucao/${refund.gatewayRef}`)).toMatchObject({ valor: '80.00', rtrId: expect.stringMatching(/^D99990002/), horario: { liquidacao: null } });

    await h.gw.sim.settleRefund(refund.gatewayRef);
    const notification = await lastNotification();
    expect(JSON.parse(notification.rawBody.toString('utf8'))).toMatchObject({ evento: 'DEVOLUCAO_ATUALIZADA', recursoId: refund.gatewayRef, endToEndId: e2e });
    expect(await h.gw.adapter.parseWebhook(notification)).toMatchObject([
      { kind: 'refund_status', refund: { gatewayRef: refund.gatewayRef, paymentRef: payment.gatewayRef, status: 'succeeded', rawStatus: 'DEVOLVIDO' } },
    ]);
    expect(await h.gw.adapter.getRefund(refund.gatewayRef, payment.gatewayRef)).toMatchObject({ status: 'succeeded' });
  });

  it('two partial devoluções sum to the amount; a third is refused at amount; a repeated PUT finds the same one', async () => {
    const payment = await paid('pix', 3_000);
    const input = refundOf(payment, 1_000);
    const first = await h.gw.adapter.createRefund(input);
    expect((await h.gw.adapter.createRefund(input)).gatewayRef).toBe(first.gatewayRef);
    await h.gw.adapter.createRefund(refundOf(payment, 2_000));
    const third = await expectApiError(h.gw.adapter.createRefund(refundOf(payment, 1)), 'invalid_input');
    expect(third.extra.issues).toEqual([{ path: ['amount'], message: expect.any(String) }]);
  });

  it('once the paid notification was confirmed, a devolução is one call at the gateway: the endToEndId is remembered', async () => {
    const payment = await h.gw.adapter.createPayment({ idempotencyKey: key(), amount: 600, method: 'pix', customer: CUSTOMER });
    await h.gw.sim.payPayment(payment.gatewayRef);
    expect(await h.gw.adapter.parseWebhook(await lastNotification())).toMatchObject([{ kind: 'payment_status', payment: { status: 'paid' } }]);
    const before = h.gw.sim.stats().calls;
    await h.gw.adapter.createRefund(refundOf(payment, 600));
    const after = h.gw.sim.stats().calls;
    expect({ reads: (after.getPayment ?? 0) - (before.getPayment ?? 0), refunds: (after.createRefund ?? 0) - (before.createRefund ?? 0) }).toEqual({ reads: 0, refunds: 1 });
  });

  it('at once: the PUT answers DEVOLVIDO', async () => {
    await h.gw.sim.setRefundSettlement('at-once');
    const payment = await paid('pix', 2_000);
    expect(await h.gw.adapter.createRefund(refundOf(payment, 2_000))).toMatchObject({ status: 'succeeded', rawStatus: 'DEVOLVIDO' });
  });

  it('NAO_REALIZADO by control is failed with the reason', async () => {
    const payment = await paid('pix', 2_000);
    const refund = await h.gw.adapter.createRefund(refundOf(payment, 2_000));
    await h.gw.sim.failRefund(refund.gatewayRef, 'Conta encerrada');
    expect(await h.gw.adapter.parseWebhook(await lastNotification())).toMatchObject([{ kind: 'refund_status', refund: { status: 'failed', rawStatus: 'NAO_REALIZADO', failureReason: 'Conta encerrada' } }]);
  });

  it('an unpaid Pix is refused without a refund call; a devolução notification without its endToEndId is malformed', async () => {
    const open = await h.gw.adapter.createPayment({ idempotencyKey: key(), amount: 700, method: 'pix', customer: CUSTOMER });
    const calls = h.gw.sim.stats().calls.createRefund ?? 0;
    const error = await expectApiError(h.gw.adapter.createRefund(refundOf(open, 700)), 'invalid_input');
    expect(error.extra.issues).toEqual([{ path: [], message: expect.stringContaining('not paid') }]);
    expect(h.gw.sim.stats().calls.createRefund ?? 0).toBe(calls);
    await expectApiError(h.gw.adapter.getRefund('0'.repeat(35), open.gatewayRef), 'missing_gateway_ref');

    const body = Buffer.from(JSON.stringify({ eventoId: 'evb_x', evento: 'DEVOLUCAO_ATUALIZADA', recursoId: '0'.repeat(35), criadoEm: new Date().toISOString() }));
    await expect(h.gw.adapter.parseWebhook({ headers: { 'x-webhook-token': CREDENTIALS.gateway_b.webhookToken }, rawBody: body })).rejects.toMatchObject({ reason: 'malformed_payload' });
  });
});
