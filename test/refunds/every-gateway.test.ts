/**
 * Refunds on each gateway (decision 18), through /v1 against the gateway
 * simulators over real sockets: a full refund, two partial ones summing to
 * the amount and a third refused at `amount` (a gateway that refunds only
 * whole payments answers 501 to a part), the 409 of a payment that is not
 * paid, the events and `amountRefunded` as the gateway settles, and a
 * gateway's refusal or failure ending in `refund.failed`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_NAMES } from '../../server/contract/enums';
import { gatewayCapabilities } from '../../server/gateways';
import { GatewayAAdapter } from '../../server/gateways/gateway_a/adapter';
import { GatewayBAdapter } from '../../server/gateways/gateway_b/adapter';
import { GatewayCAdapter } from '../../server/gateways/gateway_c/adapter';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { CUSTOMER, refundApi, uniqueId } from './support';

/** The gateways whose adapter speaks its refund protocol (all three once each gateway's refunds have landed). */
const ADAPTERS = { gateway_a: GatewayAAdapter, gateway_b: GatewayBAdapter, gateway_c: GatewayCAdapter };
const REFUNDING = GATEWAY_NAMES.filter((gateway) => typeof (ADAPTERS[gateway].prototype as { createRefund?: unknown }).createRefund === 'function');

let world: SandboxedService;
let t: ReturnType<typeof refundApi>;

beforeAll(async () => {
  world = await startSandboxedService({ env: { RATE_LIMIT_PAYMENTS_CANCEL: '1000', RATE_LIMIT_DEFAULT: '100000', RATE_LIMIT_PAYMENTS_CREATE: '1000' } });
  t = refundApi(world);
});
afterAll(() => world?.stop());

describe.each(REFUNDING)('refunds on %s', (gateway) => {
  const partial = gatewayCapabilities[gateway].refunds === 'partial';

  it('a full refund: 201 pending, then succeeded when the gateway settles it; amountRefunded and the events follow', async () => {
    const payment = await t.paidPayment(gateway, 4990);
    const externalId = uniqueId('refund');
    const created = await t.refund(payment.id, { externalId, reason: 'customer changed their mind' });
    expect(created.status, created.text).toBe(201);
    world.contract.expectConforms('POST', '/v1/payments/{id}/refunds', created);
    expect(created.headers.get('idempotent-replayed')).toBeNull();
    expect(created.body).toMatchObject({ paymentId: payment.id, externalId, amount: 4990, currency: 'BRL', gateway, reason: 'customer changed their mind', failureReason: null });
    expect(created.body.id).toMatch(/^ref_[0-9a-z]{24}$/);
    expect(created.body.gatewayRef).toEqual(expect.any(String));
    // Until the gateway says so, no money is counted as given back.
    if (created.body.status === 'pending') {
      expect((await t.api('GET', `/v1/payments/${payment.id}`)).body).toMatchObject({ status: 'paid', amountRefunded: 0 });
      const settled = await t.atGateway(gateway, created.body, 'settle');
      expect(settled.body.status).toBe('succeeded');
    }
    const read = await t.api('GET', `/v1/payments/${payment.id}`);
    world.contract.expectConforms('GET', '/v1/payments/{id}', read);
    expect(read.body).toMatchObject({ status: 'paid', amountRefunded: 4990 });
    const byExternalId = await t.api('GET', `/v1/refunds?externalId=${externalId}`);
    world.contract.expectConforms('GET', '/v1/refunds', byExternalId);
    expect(byExternalId.body).toMatchObject({ id: created.body.id, status: 'succeeded' });

    const events = await t.events(created.body.id);
    expect(events.map((event) => event.type)).toEqual(['refund.created', 'refund.succeeded']);
    expect(events[0]!.data).toEqual({
      refundId: created.body.id,
      paymentId: payment.id,
      externalId,
      status: 'pending',
      provider: gateway,
      amount: 4990,
      currency: 'BRL',
      reason: 'customer changed their mind',
      gatewayRef: created.body.gatewayRef,
      failureReason: null,
    });
    expect(events[1]!.data).toMatchObject({ refundId: created.body.id, paymentId: payment.id, status: 'succeeded', amount: 4990 });

    // Nothing is left: a further refund is refused at amount, naming what is refundable.
    const more = await t.refund(payment.id, { externalId: uniqueId('refund') });
    expect(more.status).toBe(400);
    world.contract.expectConforms('POST', '/v1/payments/{id}/refunds', more);
    expect(more.body).toMatchObject({ error: 'invalid_input', issues: [{ path: ['amount'], message: expect.stringContaining('0 of 4990 is refundable') }] });
  });

  it.runIf(partial)('two partial refunds summing to the amount; a third is refused at amount', async () => {
    const payment = await t.paidPayment(gateway, 3000);
    const first = await t.refund(payment.id, { externalId: uniqueId('refund'), amount: 1000 });
    expect(first.status).toBe(201);
    // What is pending counts as refunded for the sum rule.
    const tooMuch = await t.refund(payment.id, { externalId: uniqueId('refund'), amount: 2001 });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.issues).toEqual([{ path: ['amount'], message: 'must be at most 2000: 2000 of 3000 is refundable (1000 refunded or being refunded)' }]);
    const second = await t.refund(payment.id, { externalId: uniqueId('refund') });
    expect(second.status).toBe(201);
    expect(second.body.amount).toBe(2000);
    const third = await t.refund(payment.id, { externalId: uniqueId('refund'), amount: 1 });
    expect(third.status).toBe(400);
    expect(third.body.issues[0].path).toEqual(['amount']);

    if (first.body.status === 'pending') await t.atGateway(gateway, first.body, 'settle');
    expect((await t.api('GET', `/v1/payments/${payment.id}`)).body.amountRefunded).toBe(1000);
    if (second.body.status === 'pending') await t.atGateway(gateway, second.body, 'settle');
    expect((await t.api('GET', `/v1/payments/${payment.id}`)).body.amountRefunded).toBe(3000);
    const types = (await t.events(first.body.id, second.body.id)).map((event) => `${event.resourceId === first.body.id ? 'first' : 'second'} ${event.type}`);
    expect(types).toEqual(['first refund.created', 'second refund.created', 'first refund.succeeded', 'second refund.succeeded']);
  });

  it.runIf(!partial)('a gateway that refunds only whole payments answers 501 to a part, and takes the whole', async () => {
    const payment = await t.paidPayment(gateway, 3000);
    const part = await t.refund(payment.id, { externalId: uniqueId('refund'), amount: 1000 });
    expect(part.status).toBe(501);
    world.contract.expectConforms('POST', '/v1/payments/{id}/refunds', part);
    expect(part.body).toEqual({ error: 'not_implemented', message: expect.any(String), action: 'refund', provider: gateway });
    const whole = await t.refund(payment.id, { externalId: uniqueId('refund'), amount: 3000 });
    expect(whole.status).toBe(201);
  });

  it('a gateway that settles at once: 201 succeeded, amountRefunded at once, and its notifications (even repeated) count it once', async () => {
    const payment = await t.paidPayment(gateway, 2200);
    await world.sandbox.sims[gateway].setRefundSettlement('at-once');
    try {
      const created = await t.refund(payment.id, { externalId: uniqueId('at-once') });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ status: 'succeeded', amount: 2200 });
      expect((await t.api('GET', `/v1/payments/${payment.id}`)).body.amountRefunded).toBe(2200);
      await world.sandbox.sims[gateway].flushWebhooks();
      await world.sandbox.sims[gateway].replayWebhooks({ last: 2 });
      await world.sandbox.sims[gateway].flushWebhooks();
      expect((await t.api('GET', `/v1/payments/${payment.id}`)).body.amountRefunded).toBe(2200);
      expect((await t.events(created.body.id)).map((event) => event.type)).toEqual(['refund.created', 'refund.succeeded']);
    } finally {
      await world.sandbox.sims[gateway].setRefundSettlement('later');
    }
  });

  it('a payment that is not paid cannot be refunded: 409 cannot_refund_status with its status (pending, canceled, expired)', async () => {
    const method = gateway === 'gateway_c' ? 'card' : 'pix';
    await world.sandbox.route(method === 'pix' ? 'PIX' : 'CARD', gateway);
    const pending = await t.api('POST', '/v1/payments', { amount: 1500, method, externalId: uniqueId('order'), customer: CUSTOMER });
    expect(pending.status).toBe(201);
    const refused = await t.refund(pending.body.id, { externalId: uniqueId('refund') });
    expect(refused.status).toBe(409);
    world.contract.expectConforms('POST', '/v1/payments/{id}/refunds', refused);
    expect(refused.body).toEqual({ error: 'cannot_refund_status', message: expect.any(String), status: pending.body.status });

    if (method === 'pix') {
      await world.sandbox.sims[gateway].expirePayment(pending.body.gatewayRef);
      await world.sandbox.sims[gateway].flushWebhooks();
      expect((await t.api('POST', `/v1/payments/${pending.body.id}/sync`)).body.status).toBe('expired');
      expect((await t.refund(pending.body.id, { externalId: uniqueId('refund') })).body).toMatchObject({ error: 'cannot_refund_status', status: 'expired' });
    }
    if (gatewayCapabilities[gateway].paymentCancel) {
      await world.sandbox.route('CARD', gateway);
      const card = await t.api('POST', '/v1/payments', { amount: 1500, method: 'card', card: { installments: 1 }, externalId: uniqueId('order'), customer: CUSTOMER });
      expect((await t.api('POST', `/v1/payments/${card.body.id}/cancel`)).body.status).toBe('canceled');
      expect((await t.refund(card.body.id, { externalId: uniqueId('refund') })).body).toMatchObject({ error: 'cannot_refund_status', status: 'canceled' });
    }
    // Nothing was asked of the gateway, and nothing is left behind.
    expect((await t.api('GET', `/v1/payments/${pending.body.id}`)).body.amountRefunded).toBe(0);
  });

  it('a refund the gateway fails later is refund.failed with its reason; its amount is refundable again', async () => {
    const payment = await t.paidPayment(gateway, 2000);
    const created = await t.refund(payment.id, { externalId: uniqueId('refund') });
    expect(created.status, created.text).toBe(201);
    expect(created.body.status).toBe('pending');
    const failed = await t.atGateway(gateway, created.body, 'fail');
    expect(failed.body).toMatchObject({ status: 'failed', failureReason: expect.any(String) });
    expect((await t.events(created.body.id)).map((event) => event.type)).toEqual(['refund.created', 'refund.failed']);
    expect((await t.api('GET', `/v1/payments/${payment.id}`)).body.amountRefunded).toBe(0);
    // A final status never moves back, whatever the gateway repeats.
    await world.sandbox.sims[gateway].replayWebhooks({ last: 1 });
    expect((await t.api('GET', `/v1/refunds/${created.body.id}`)).body.status).toBe('failed');
    const again = await t.refund(payment.id, { externalId: uniqueId('refund') });
    expect(again.status).toBe(201);
    expect(again.body.amount).toBe(2000);
  });

  it('a gateway that refuses the refund as asked: 201 failed at once, with refund.created and refund.failed, nothing counted', async () => {
    const payment = await t.paidPayment(gateway, 2500);
    world.sandbox.sims[gateway].injectFault('createRefund', { kind: 'validation' });
    const created = await t.refund(payment.id, { externalId: uniqueId('refund'), ...(partial ? { amount: 500 } : {}) });
    expect(created.status, created.text).toBe(201);
    world.contract.expectConforms('POST', '/v1/payments/{id}/refunds', created);
    expect(created.body).toMatchObject({ status: 'failed', gatewayRef: null, failureReason: expect.stringContaining('refused') });
    const events = await t.events(created.body.id);
    expect(events.map((event) => event.type)).toEqual(['refund.created', 'refund.failed']);
    expect(events[1]!.data).toMatchObject({ status: 'failed', failureReason: created.body.failureReason });
    // Repeating it answers the failed refund; a new externalId may try again with the whole amount.
    const repeated = await t.refund(payment.id, { externalId: created.body.externalId });
    expect(repeated.body).toEqual(created.body);
    expect(repeated.headers.get('idempotent-replayed')).toBe('true');
    expect((await t.refund(payment.id, { externalId: uniqueId('refund') })).body.amount).toBe(2500);
  });
});
