import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres } from '../support/database';
import { call, validPayment } from '../support/http';
import { startTestService, startTwoNodes, type TestService, type TwoNodes } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

const createPayment = (baseUrl: string, key: string, body: unknown = validPayment()) => call(baseUrl, 'POST', '/v1/payments', { key, body });

function expectRateHeaders(headers: Headers, limit: number) {
  expect(headers.get('x-ratelimit-limit')).toBe(String(limit));
  expect(Number(headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
  const reset = Number(headers.get('x-ratelimit-reset'));
  const now = Date.now() / 1000;
  expect(reset).toBeGreaterThan(now - 1);
  expect(reset).toBeLessThanOrEqual(now + 61);
}

describe('POST /v1/payments: 30 per minute per key', () => {
  let tenant: TestTenant;
  beforeAll(async () => {
    tenant = await createTenant(service);
  });

  it('counts every authenticated request, valid or not, and refuses the 31st with the four headers', async () => {
    for (let i = 1; i <= 30; i++) {
      // Alternate valid and invalid bodies: both count (rate limit before validation).
      const reply = await createPayment(service.url, tenant.apiKey, i % 2 ? validPayment() : { amount: 'x' });
      expect(reply.status).not.toBe(429);
      expect(reply.headers.get('x-ratelimit-remaining')).toBe(String(30 - i));
      expectRateHeaders(reply.headers, 30);
    }
    const refused = await createPayment(service.url, tenant.apiKey);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'rate_limit_exceeded', message: expect.any(String) });
    expectRateHeaders(refused.headers, 30);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  it('429 comes before body validation', async () => {
    const reply = await call(service.url, 'POST', '/v1/payments', { key: tenant.apiKey, rawBody: '{broken', headers: { 'content-type': 'application/json' } });
    expect(reply.status).toBe(429);
  });

  it('another key of the same environment is unaffected', async () => {
    const other = await service.admin.apiKeys.create({ environmentId: tenant.environmentId });
    const reply = await createPayment(service.url, other.secret);
    expect(reply.status).toBe(409); // reached routing
    expect(reply.headers.get('x-ratelimit-remaining')).toBe('29');
  });

  it('GET /v1/auth/test never consumes the payment quota and has its own default limit', async () => {
    const reply = await call(service.url, 'GET', '/v1/auth/test', { key: tenant.apiKey });
    expect(reply.status).toBe(200);
    expectRateHeaders(reply.headers, 600);
  });

  it('subscriptions use the default bucket, not the payment quota', async () => {
    const reply = await call(service.url, 'POST', '/v1/subscriptions', { key: tenant.apiKey, body: {} });
    expect(reply.status).toBe(400);
    expect(reply.headers.get('x-ratelimit-limit')).toBe('600');
  });
});

describe('POST /v1/payments/{id}/sync and /cancel: 10 per minute each, separate quotas', () => {
  it('the 11th sync is refused while cancel and create keep their own quotas', async () => {
    const tenant = await createTenant(service);
    const id = 'pay_000000000000000000000000';
    for (let i = 1; i <= 10; i++) {
      const reply = await call(service.url, 'POST', `/v1/payments/${id}/sync`, { key: tenant.apiKey });
      expect(reply.status).toBe(404); // counted although the payment does not exist
      expectRateHeaders(reply.headers, 10);
      expect(reply.headers.get('x-ratelimit-remaining')).toBe(String(10 - i));
    }
    const refused = await call(service.url, 'POST', `/v1/payments/${id}/sync`, { key: tenant.apiKey });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);

    const cancel = await call(service.url, 'POST', `/v1/payments/${id}/cancel`, { key: tenant.apiKey });
    expect(cancel.status).toBe(404);
    expect(cancel.headers.get('x-ratelimit-remaining')).toBe('9');
    const create = await createPayment(service.url, tenant.apiKey);
    expect(create.headers.get('x-ratelimit-remaining')).toBe('29');
  });
});

describe('per-key limits', () => {
  it('an operator can raise or lower one key, and restore the default', async () => {
    const tenant = await createTenant(service);
    await service.admin.apiKeys.setRateLimits({ apiKeyId: tenant.apiKeyId, limits: { payments_create: 2 } });
    expect((await createPayment(service.url, tenant.apiKey)).headers.get('x-ratelimit-limit')).toBe('2');
    await createPayment(service.url, tenant.apiKey);
    expect((await createPayment(service.url, tenant.apiKey)).status).toBe(429);

    await service.admin.apiKeys.setRateLimits({ apiKeyId: tenant.apiKeyId, limits: { payments_create: null } });
    const restored = await createPayment(service.url, tenant.apiKey);
    expect(restored.headers.get('x-ratelimit-limit')).toBe('30');
  });
});

describe.runIf(onPostgres)('two service nodes on one PostgreSQL (counters in Redis)', () => {
  let nodes: TwoNodes;
  let first: TestService;
  let second: TestService;
  beforeAll(async () => {
    nodes = await startTwoNodes();
    ({ first, second } = nodes);
  });
  afterAll(async () => nodes?.stop());

  it('share one counter per key', async () => {
    const tenant = await createTenant(first);
    const nodes = [first.url, second.url];
    const replies = [];
    for (let i = 0; i < 31; i++) replies.push(await createPayment(nodes[i % 2]!, tenant.apiKey));
    expect(replies.slice(0, 30).every((r) => r.status === 409)).toBe(true);
    expect(replies[30]!.status).toBe(429);
    // Either node refuses now.
    expect((await createPayment(first.url, tenant.apiKey)).status).toBe(429);
  });

  it('concurrent requests across nodes never let more than the limit through', async () => {
    const tenant = await createTenant(first);
    const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => createPayment(i % 2 ? first.url : second.url, tenant.apiKey)));
    expect(replies.filter((r) => r.status === 409)).toHaveLength(30);
    expect(replies.filter((r) => r.status === 429)).toHaveLength(10);
  });
});
