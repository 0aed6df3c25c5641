import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxEvent } from '../../server/db/entities';
import type { ContractChecker } from '../support/contract';
import { call, validPayment } from '../support/http';
import { startSandbox, type Sandbox } from '../support/gateways';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import type { TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';

let service: TestService;
let tenant: TestTenant;
let sandbox: Sandbox;
let contract: ContractChecker;
let world: SandboxedService;

beforeAll(async () => {
  // Short gateway timeouts so hangs end quickly; a high create limit for the concurrency test.
  world = await startSandboxedService({ env: { GATEWAY_TIMEOUT_MS: '1500', RATE_LIMIT_PAYMENTS_CREATE: '1000' }, routes: { PIX: 'gateway_a', CARD: 'gateway_a' } });
  ({ service, tenant, sandbox, contract } = world);
});
afterAll(() => world?.stop());

const create = async (body: unknown) => {
  const reply = await call(service.url, 'POST', '/v1/payments', { key: tenant.apiKey, body });
  contract.expectConforms('POST', '/v1/payments', reply);
  return reply;
};
const charges = () => sandbox.sims.gateway_a.stats().created.payments;
const eventTypes = async (paymentId: string) =>
  (await service.services.db.fork().find(OutboxEvent, { resourceId: paymentId }, { orderBy: { sequence: 'asc' } })).map((e) => e.type);

describe('idempotency by externalId', () => {
  it('50 concurrent creates with one externalId: all 201 with the same id, exactly one gateway charge', async () => {
    const before = charges();
    const body = validPayment({ externalId: 'race-1' });
    const replies = await Promise.all(Array.from({ length: 50 }, () => create(body)));
    expect(replies.map((r) => r.status)).toEqual(Array(50).fill(201));
    expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
    expect(charges() - before).toBe(1);
    expect(await eventTypes(replies[0]!.body.id)).toEqual(['payment.created', 'payment.pending']);
  });

  it('a repeated externalId with a different payload answers the existing payment unchanged, calling no gateway', async () => {
    const first = await create(validPayment({ externalId: 'repeat-1', amount: 1000 }));
    const before = charges();
    const second = await create(validPayment({ externalId: 'repeat-1', amount: 9999, method: 'card' }));
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(charges()).toBe(before);
  });

  it('the same externalId in another environment is another payment', async () => {
    const other = await createTenant(service);
    const otherSandbox = await startSandbox(service, other.environmentId, { PIX: 'gateway_a' });
    const mine = await create(validPayment({ externalId: 'shared-ext' }));
    const theirs = await call(service.url, 'POST', '/v1/payments', { key: other.apiKey, body: validPayment({ externalId: 'shared-ext' }) });
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
    await otherSandbox.close();
  });
});

describe('gateway faults', () => {
  it('created at the gateway but the answer never arrived: 502, and the retry answers the same charge (one charge)', async () => {
    const before = charges();
    sandbox.sims.gateway_a.injectFault('createPayment', { kind: 'drop_response' });
    const body = validPayment({ externalId: 'lost-answer-1' });
    const failed = await create(body);
    expect(failed.status).toBe(502);
    expect(failed.body).toEqual({ error: 'gateway_error', message: expect.any(String), provider: 'gateway_a' });
    expect(charges() - before).toBe(1); // the gateway did create it

    const retried = await create(body);
    expect(retried.status).toBe(201);
    expect(retried.body.status).toBe('pending');
    expect(charges() - before).toBe(1);
    expect(await eventTypes(retried.body.id)).toEqual(['payment.created', 'payment.pending']);
  });

  it('a hanging gateway ends in 502 within the timeout, and nothing is half-written', async () => {
    sandbox.sims.gateway_a.injectFault('createPayment', { kind: 'hang' });
    const started = Date.now();
    const body = validPayment({ externalId: 'hang-1' });
    const reply = await create(body);
    expect(reply.status).toBe(502);
    expect(reply.body.provider).toBe('gateway_a');
    expect(Date.now() - started).toBeLessThan(10_000);
    const stored = await call(service.url, 'GET', '/v1/payments?externalId=hang-1', { key: tenant.apiKey });
    expect(stored.body).toMatchObject({ status: 'created', gatewayRef: null });
    const retried = await create(body);
    expect(retried.status).toBe(201);
    expect(retried.body.gatewayRef).not.toBeNull();
  });

  it.each([
    [{ kind: 'server_error' as const }, 'a 5xx'],
    [{ kind: 'client_error' as const, status: 403 }, 'an unexpected 4xx'],
    [{ kind: 'malformed' as const }, 'a malformed body'],
  ])('%o (%s) is 502 gateway_error with provider, retry-safe', async (fault, _what) => {
    sandbox.sims.gateway_a.injectFault('createPayment', fault);
    const body = validPayment();
    const reply = await create(body);
    expect(reply.status).toBe(502);
    expect(reply.body.provider).toBe('gateway_a');
    expect((await create(body)).status).toBe(201);
  });

  it('a validation refusal of the gateway is 400 invalid_input, and frees the externalId for a corrected request', async () => {
    sandbox.sims.gateway_a.injectFault('createPayment', { kind: 'validation', field: 'customer.email' });
    const refused = await create(validPayment({ externalId: 'refused-1' }));
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_input');
    expect(refused.body.issues[0].path).toEqual(['customer', 'email']);
    const missing = await call(service.url, 'GET', '/v1/payments?externalId=refused-1', { key: tenant.apiKey });
    expect(missing.status).toBe(404);
    expect((await create(validPayment({ externalId: 'refused-1' }))).status).toBe(201);
  });
});

describe('monthly quota counts created payments', () => {
  it('each new payment adds one; repeats add none', async () => {
    const quota = await createTenant(service);
    const qs = await startSandbox(service, quota.environmentId, { PIX: 'gateway_a' });
    await service.admin.organizations.setBilling({ organizationId: quota.organizationId, monthlyTxLimit: 2 });
    const post = (body: unknown) => call(service.url, 'POST', '/v1/payments', { key: quota.apiKey, body });
    const first = validPayment();
    expect((await post(first)).status).toBe(201);
    expect((await post(first)).status).toBe(201);
    expect((await post(validPayment())).status).toBe(201);
    const over = await post(validPayment());
    expect(over.status).toBe(402);
    expect(over.body).toMatchObject({ error: 'billing_monthly_tx_limit_reached', limit: 2, used: 2 });
    // Asking again for an existing payment is not a new transaction.
    expect((await post(first)).status).toBe(201);
    await qs.close();
  });
});
