import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxEvent } from '../../server/db/entities';
import type { ContractChecker } from '../support/contract';
import { call, validPayment } from '../support/http';
import type { Sandbox } from '../support/gateways';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import type { TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';

let service: TestService;
let tenant: TestTenant;
let sandbox: Sandbox;
let contract: ContractChecker;
let world: SandboxedService;

beforeAll(async () => {
  world = await startSandboxedService({ env: { GATEWAY_TIMEOUT_MS: '1500', RATE_LIMIT_PAYMENTS_CANCEL: '1000', RATE_LIMIT_PAYMENTS_SYNC: '1000' }, routes: { PIX: 'gateway_a', CARD: 'gateway_a' } });
  ({ service, tenant, sandbox, contract } = world);
});
afterAll(() => world?.stop());

async function request(method: 'GET' | 'POST', path: string, documented: string, body?: unknown) {
  const reply = await call(service.url, method, path, { key: tenant.apiKey, body });
  contract.expectConforms(method, documented, reply);
  return reply;
}
const create = (overrides: Record<string, unknown> = {}) => request('POST', '/v1/payments', '/v1/payments', validPayment(overrides));
const cancel = (id: string) => request('POST', `/v1/payments/${id}/cancel`, '/v1/payments/{id}/cancel');
const sync = (id: string) => request('POST', `/v1/payments/${id}/sync`, '/v1/payments/{id}/sync');
const get = (id: string) => request('GET', `/v1/payments/${id}`, '/v1/payments/{id}');
const eventTypes = async (paymentId: string) =>
  (await service.services.db.fork().find(OutboxEvent, { resourceId: paymentId }, { orderBy: { sequence: 'asc' } })).map((e) => e.type);

describe('POST /v1/payments/{id}/cancel', () => {
  it('cancels an unpaid card payment at the gateway and records payment.canceled', async () => {
    const payment = (await create({ method: 'card' })).body;
    const reply = await cancel(payment.id);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ id: payment.id, status: 'canceled' });
    expect(await eventTypes(payment.id)).toEqual(['payment.created', 'payment.pending', 'payment.canceled']);
    // A second cancel: the payment is already in a final status.
    const again = await cancel(payment.id);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: 'already_canceled', message: expect.any(String), status: 'canceled' });
  });

  it('checks in the documented order: pix, paid, ended, processing, no gateway reference', async () => {
    const pix = (await create({ method: 'pix' })).body;
    expect((await cancel(pix.id)).body.error).toBe('cannot_cancel_pix');

    const paid = (await create({ method: 'card' })).body;
    await sandbox.sims.gateway_a.payPayment(paid.gatewayRef);
    const paidReply = await cancel(paid.id);
    expect(paidReply.status).toBe(409);
    expect(paidReply.body.error).toBe('cannot_cancel_paid');

    for (const [act, status] of [['declinePayment', 'failed'], ['expirePayment', 'expired']] as const) {
      const ended = (await create({ method: 'card' })).body;
      await sandbox.sims.gateway_a[act](ended.gatewayRef);
      const reply = await cancel(ended.id);
      expect(reply.status).toBe(409);
      expect(reply.body).toEqual({ error: 'already_canceled', message: expect.any(String), status });
    }

    const processing = (await create({ method: 'card' })).body;
    await sandbox.sims.gateway_a.setPaymentStatus(processing.gatewayRef, 'processing');
    expect((await get(processing.id)).body.status).toBe('processing');
    const busy = await cancel(processing.id);
    expect(busy.status).toBe(409);
    expect(busy.body).toEqual({ error: 'cannot_cancel_status', message: expect.any(String), status: 'processing' });
  });

  it('409 missing_gateway_ref when the payment never reached its gateway', async () => {
    sandbox.sims.gateway_a.injectFault('createPayment', { kind: 'server_error' });
    const failed = await create({ method: 'card', externalId: 'never-registered' });
    expect(failed.status).toBe(502);
    const stored = await request('GET', '/v1/payments?externalId=never-registered', '/v1/payments');
    const reply = await cancel(stored.body.id);
    expect(reply.status).toBe(409);
    expect(reply.body.error).toBe('missing_gateway_ref');
    expect((await sync(stored.body.id)).body.error).toBe('missing_gateway_ref');
  });

  it('501 not_implemented with action and provider where the gateway cannot cancel (gateway_b)', async () => {
    await sandbox.route('CARD', 'gateway_b');
    const payment = (await create({ method: 'card' })).body;
    expect(payment.gateway).toBe('gateway_b');
    const reply = await cancel(payment.id);
    expect(reply.status).toBe(501);
    expect(reply.body).toEqual({ error: 'not_implemented', message: expect.any(String), action: 'cancel', provider: 'gateway_b' });
    await sandbox.route('CARD', 'gateway_a');
  });

  it('502 gateway_error when the gateway fails the cancel, and the payment is unchanged', async () => {
    const payment = (await create({ method: 'card' })).body;
    sandbox.sims.gateway_a.injectFault('cancelPayment', { kind: 'server_error' });
    const reply = await cancel(payment.id);
    expect(reply.status).toBe(502);
    expect(reply.body.provider).toBe('gateway_a');
    expect((await get(payment.id)).body.status).toBe('pending');
  });
});

describe('POST /v1/payments/{id}/sync', () => {
  it('applies what the gateway says now, with its event; processing records none', async () => {
    const payment = (await create({ method: 'card' })).body;
    sandbox.sims.gateway_a.setWebhookUrl(null); // only sync can tell the service
    await sandbox.sims.gateway_a.setPaymentStatus(payment.gatewayRef, 'processing');
    expect((await sync(payment.id)).body.status).toBe('processing');
    await sandbox.sims.gateway_a.payPayment(payment.gatewayRef, { brand: 'visa', last4: '4242' });
    const synced = await sync(payment.id);
    expect(synced.body).toMatchObject({ status: 'paid', card: { brand: 'visa', last4: '4242' } });
    expect(await eventTypes(payment.id)).toEqual(['payment.created', 'payment.pending', 'payment.paid']);
    const account = (await service.admin.gateways.list({ environmentId: tenant.environmentId })).find((a) => a.gateway === 'gateway_a')!;
    sandbox.sims.gateway_a.setWebhookUrl(account.webhookUrl);
  });

  it('recovers a Pix code that gateway_b failed to hand over at creation', async () => {
    await sandbox.route('PIX', 'gateway_b');
    sandbox.sims.gateway_b.injectFault('getPixQrCode', { kind: 'server_error' });
    const created = await create({ method: 'pix' });
    expect(created.status).toBe(201);
    expect(created.body.pix).toBeNull();
    const synced = await sync(created.body.id);
    expect(synced.body.pix).toEqual({ qrCode: expect.any(String), qrCodeText: expect.any(String) });
    await sandbox.route('PIX', 'gateway_a');
  });

  it('502 when the gateway cannot be reached, state unchanged', async () => {
    const payment = (await create()).body;
    sandbox.sims.gateway_a.injectFault('getPayment', { kind: 'hang' });
    const reply = await sync(payment.id);
    expect(reply.status).toBe(502);
    expect((await get(payment.id)).body.status).toBe('pending');
  });
});

describe('reads never call the gateway', () => {
  it('by id and by externalId, with missing_query, invalid_id and not_found', async () => {
    const payment = (await create({ externalId: 'read-me' })).body;
    const calls = JSON.stringify(sandbox.sims.gateway_a.stats().calls);
    expect((await get(payment.id)).body).toEqual(payment);
    expect((await request('GET', '/v1/payments?externalId=read-me', '/v1/payments')).body).toEqual(payment);
    expect(JSON.stringify(sandbox.sims.gateway_a.stats().calls)).toBe(calls);

    expect((await request('GET', '/v1/payments', '/v1/payments')).body.error).toBe('missing_query');
    expect((await request('GET', '/v1/payments?externalId=', '/v1/payments')).body.error).toBe('missing_query');
    expect((await request('GET', '/v1/payments?externalId=nope', '/v1/payments')).status).toBe(404);
    for (const id of ['sub_123', 'pay_', 'pay_UPPERCASE00000000000000000', 'anything']) {
      const reply = await get(id);
      expect(reply.status, id).toBe(400);
      expect(reply.body.error).toBe('invalid_id');
    }
    expect((await get('pay_000000000000000000000000')).status).toBe(404);
  });

  it("another environment's payment is not found, for reads, cancel and sync", async () => {
    const payment = (await create({ method: 'card' })).body;
    const other = await createTenant(service);
    for (const [method, path] of [['GET', `/v1/payments/${payment.id}`], ['POST', `/v1/payments/${payment.id}/cancel`], ['POST', `/v1/payments/${payment.id}/sync`], ['GET', `/v1/payments?externalId=${payment.externalId}`]] as const) {
      const reply = await call(service.url, method, path, { key: other.apiKey });
      expect(reply.status, path).toBe(404);
      expect(reply.body.error).toBe('not_found');
    }
  });
});
