/**
 * A merchant's sandbox key simulates outcomes of its own payments and refunds
 * (the operator API's simulators.payment and simulators.refund, as the
 * merchant CLI's `payments sim …` calls them): in its own environment only
 * (another environment's id is not found, telling nothing about it), never
 * with a production key (403 in the contract's shape), and nothing else of
 * the simulators (faults, replays) opens to a key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, validPayment } from '../support/http';
import { eventually } from '../support/outbox-events';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { createTenant, type TestTenant } from '../support/tenant';

describe('sandbox simulators with an API key', () => {
  let sandboxed: SandboxedService;
  let otherSandbox: TestTenant;
  let production: TestTenant;

  /** A procedure of the operator API with `key`, as the merchant CLI sends it. */
  const simulate = (procedure: string, key: string, input: unknown) =>
    call(sandboxed.service.url, 'POST', `/internal/trpc/simulators.${procedure}`, { key, body: input });
  const payment = async (id: string) => (await call(sandboxed.service.url, 'GET', `/v1/payments/${id}`, { key: sandboxed.tenant.apiKey })).body as { status: string };
  const refund = async (id: string) => (await call(sandboxed.service.url, 'GET', `/v1/refunds/${id}`, { key: sandboxed.tenant.apiKey })).body as { status: string };

  beforeAll(async () => {
    sandboxed = await startSandboxedService({ simulatorsInService: true, routes: { PIX: 'gateway_b', CARD: 'gateway_a', SUBSCRIPTION: 'gateway_c' } });
    otherSandbox = await createTenant(sandboxed.service);
    production = await createTenant(sandboxed.service, 'production');
  }, 180_000);
  afterAll(async () => {
    await sandboxed?.stop();
  });

  it('pays its own Pix and settles its refund; another sandbox key finds neither; a production key is refused', async () => {
    const key = sandboxed.tenant.apiKey;
    const created = await call(sandboxed.service.url, 'POST', '/v1/payments', { key, body: validPayment() });
    expect(created.status, created.text).toBe(201);
    const paymentId = (created.body as { id: string }).id;

    // Another environment's key: not found, in the contract's shape, and the payment is untouched.
    const foreign = await simulate('payment', otherSandbox.apiKey, { paymentId, outcome: 'pay' });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ error: 'not_found', message: expect.stringContaining(paymentId) });
    const live = await simulate('payment', production.apiKey, { paymentId, outcome: 'pay' });
    expect(live.status).toBe(403);
    expect(live.body).toMatchObject({ error: 'forbidden', message: expect.stringMatching(/sandbox key/) });
    expect((await payment(paymentId)).status).not.toBe('paid');

    const paid = await simulate('payment', key, { paymentId, outcome: 'pay' });
    expect(paid.status, paid.text).toBe(200);
    await eventually(async () => (await payment(paymentId)).status === 'paid', 15_000, 'the payment paid');

    const refunded = await call(sandboxed.service.url, 'POST', `/v1/payments/${paymentId}/refunds`, { key, body: { externalId: `refund-${paymentId}` } });
    expect(refunded.status, refunded.text).toBe(201);
    const refundId = (refunded.body as { id: string }).id;
    const foreignRefund = await simulate('refund', otherSandbox.apiKey, { refundId, outcome: 'settle' });
    expect(foreignRefund.status).toBe(404);
    expect(foreignRefund.body).toMatchObject({ error: 'not_found' });

    const settled = await simulate('refund', key, { refundId, outcome: 'settle' });
    expect(settled.status, settled.text).toBe(200);
    await eventually(async () => (await refund(refundId)).status === 'succeeded', 15_000, 'the refund settled');
  });

  it('the simulators every organization shares stay the operator\'s', async () => {
    const fault = await simulate('fault', sandboxed.tenant.apiKey, { gateway: 'gateway_b', operation: 'create', fault: { kind: 'http', status: 500 } });
    expect(fault.status).toBe(403);
    expect(fault.body).toMatchObject({ error: 'forbidden' });
    // A gateway's own refund id (not ours) is an operator's action too.
    const byGatewayRef = await simulate('refund', sandboxed.tenant.apiKey, { refundId: 're_123', gateway: 'gateway_a', outcome: 'settle' });
    expect(byGatewayRef.status).toBe(403);
    expect(byGatewayRef.body).toMatchObject({ error: 'forbidden' });
  });
});
