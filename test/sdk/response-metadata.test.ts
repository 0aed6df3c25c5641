/** Response metadata and per-request options: against a real service, and a scripted server where only it can show what was sent. */
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PaymentsApiError, PaymentsClient, PaymentsTimeoutError, SDK_VERSION, type CreatePaymentRequest, type Payment } from '@service-payments/sdk';
import type { Sandbox } from '../support/gateways';
import type { TestService } from '../support/service';
import type { TestTenant } from '../support/tenant';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { hang, json, startFakeServer, type FakeServer } from './fake-server';

const customer = { name: 'Maria Silva', email: 'maria@example.com', document: '123.456.789-09' };
const uniqueId = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2)}`;
const pix = (overrides: Partial<CreatePaymentRequest> = {}): CreatePaymentRequest => ({ amount: 2500, method: 'pix', customer, externalId: uniqueId('order'), ...overrides });
const rejection = (promise: Promise<unknown>) => promise.then(() => expect.fail('expected a rejection'), (error: unknown) => error);

describe('against a real service', () => {
  let world: SandboxedService;
  let service: TestService;
  let tenant: TestTenant;
  let sandbox: Sandbox;
  let client: PaymentsClient;

  beforeAll(async () => {
    world = await startSandboxedService({ routes: { PIX: 'gateway_a', CARD: 'gateway_a' } });
    ({ service, tenant, sandbox } = world);
    client = new PaymentsClient({ apiKey: tenant.apiKey, baseUrl: service.url, retryBaseDelayMs: 10 });
  });
  afterAll(async () => {
    await world?.stop();
  });

  it('a create exposes status, request id, rate limit and headers; a repeat says it was replayed', async () => {
    const body = pix();
    const before = Date.now();
    const first = await client.payments.create(body);
    expect(first.lastResponse).toMatchObject({ status: 201, idempotentReplayed: false, attempts: 1, requestId: expect.any(String) });
    expect(first.lastResponse.headers['x-request-id']).toBe(first.lastResponse.requestId);
    const { rateLimit } = first.lastResponse;
    expect(rateLimit).toMatchObject({ limit: 30, remaining: expect.any(Number) });
    expect(rateLimit!.remaining).toBeLessThan(30);
    expect(rateLimit!.resetAt.getTime()).toBeGreaterThan(before - 1000);
    expect(rateLimit!.resetAt.getTime()).toBeLessThanOrEqual(Date.now() + 61_000);

    const again = await client.payments.create(body);
    expect(again.id).toBe(first.id);
    expect(again.lastResponse).toMatchObject({ status: 201, idempotentReplayed: true });
    expect(again.lastResponse.rateLimit!.remaining).toBe(rateLimit!.remaining - 1);
    expect(again.lastResponse.requestId).not.toBe(first.lastResponse.requestId);
  });

  it('lastResponse is invisible to JSON, keys and equality', async () => {
    const payment = await client.payments.create(pix());
    expect(Object.keys(payment)).not.toContain('lastResponse');
    expect(JSON.stringify(payment)).not.toContain('lastResponse');
    const plain: Payment = JSON.parse(JSON.stringify(payment));
    expect(payment).toEqual(plain);
  });

  it('reads, cancels, authTest and health carry it too (health has no rate limit: it needs no key)', async () => {
    const created = await client.payments.create(pix({ method: 'card' }));
    for (const result of [await client.payments.get(created.id), await client.payments.getByExternalId(created.externalId!), await client.payments.cancel(created.id), await client.authTest()]) {
      expect(result.lastResponse).toMatchObject({ status: 200, idempotentReplayed: false, requestId: expect.any(String), rateLimit: { limit: expect.any(Number) } });
    }
    const health = await client.health();
    expect(health.lastResponse).toMatchObject({ status: 200, rateLimit: undefined });
  });

  it('a request id of the caller is sent and answered back, on success and on error', async () => {
    const payment = await client.payments.create(pix(), { requestId: 'checkout-order-42' });
    expect(payment.lastResponse.requestId).toBe('checkout-order-42');
    const error = await rejection(client.payments.get('pay_doesnotexist000000000000', { requestId: 'lookup:7' }));
    expect(error).toBeInstanceOf(PaymentsApiError);
    expect(error).toMatchObject({ status: 404, requestId: 'lookup:7', response: { status: 404, requestId: 'lookup:7', rateLimit: { limit: 600 } } });
  });

  it('a request id the service would not accept is refused before sending', async () => {
    const count = sandbox.sims.gateway_a.stats().created.payments;
    for (const requestId of ['', 'has space', 'x'.repeat(129), 'ünïcode']) {
      await expect(client.payments.create(pix(), { requestId })).rejects.toThrow(TypeError);
    }
    expect(sandbox.sims.gateway_a.stats().created.payments).toBe(count);
  });
});

describe('what the client sends', () => {
  let server: FakeServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const health = { ok: true, service: 'service-payments' };

  it('client headers, then per-request headers; a User-Agent with the version of sdk/package.json', async () => {
    server = await startFakeServer([json(200, health), json(200, health)]);
    const client = new PaymentsClient({ apiKey: 'sk_test_fake', baseUrl: server.url, headers: { 'X-Shop': 'acme', 'X-Trace': 'client' } });
    await client.health();
    await client.health({ headers: { 'x-trace': 'call-7' } });
    expect(server.requests[0]!.headers).toMatchObject({ 'x-shop': 'acme', 'x-trace': 'client' });
    expect(server.requests[1]!.headers).toMatchObject({ 'x-shop': 'acme', 'x-trace': 'call-7' });
    const { version } = JSON.parse(readFileSync(new URL('../../sdk/package.json', import.meta.url), 'utf8'));
    expect(SDK_VERSION).toBe(version);
    expect(server.requests[0]!.headers['user-agent']).toMatch(new RegExp(`^service-payments-sdk/${version.replaceAll('.', '\\.')} node/\\d+`));
  });

  it('Authorization and Content-Type cannot be overridden', async () => {
    expect(() => new PaymentsClient({ apiKey: 'sk_test_fake', baseUrl: 'http://127.0.0.1:9', headers: { Authorization: 'Bearer other' } })).toThrow(/Authorization/);
    const client = new PaymentsClient({ apiKey: 'sk_test_fake', baseUrl: 'http://127.0.0.1:9' });
    await expect(client.health({ headers: { 'content-type': 'text/plain' } })).rejects.toThrow(TypeError);
  });

  it('one request id for every attempt of a call, made by the SDK when not given; attempts counted', async () => {
    server = await startFakeServer([json(503, { error: 'internal_error' }), json(200, health)]);
    const client = new PaymentsClient({ apiKey: 'sk_test_fake', baseUrl: server.url, retryBaseDelayMs: 1, retryMaxDelayMs: 2 });
    const result = await client.health();
    const [first, second] = server.requests.map((request) => request.headers['x-request-id']);
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(second).toBe(first);
    expect(result.lastResponse).toMatchObject({ attempts: 2, status: 200 });
  });

  it('per-request timeout and retries; the timeout error names the request id it was sent with', async () => {
    server = await startFakeServer([hang, hang]);
    const client = new PaymentsClient({ apiKey: 'sk_test_fake', baseUrl: server.url, timeoutMs: 10_000, maxRetries: 3 });
    const error = await rejection(client.health({ timeoutMs: 100, maxRetries: 0, requestId: 'slow-1' }));
    expect(error).toBeInstanceOf(PaymentsTimeoutError);
    expect(error).toMatchObject({ timeoutMs: 100, requestId: 'slow-1', attempts: 1 });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.headers['x-request-id']).toBe('slow-1');
  });
});
