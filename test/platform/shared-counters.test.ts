/**
 * The counters that used to be hot rows: the monthly quota's admission, the
 * rate limits and the API-key cache. Real services, real databases, real
 * Redis on PostgreSQL (REDIS_URL), and a Redis that cannot be reached.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, onPostgres, type TestDatabase } from '../support/database';
import { startSandbox, type Sandbox } from '../support/gateways';
import { call, validPayment } from '../support/http';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { startTestService, startTwoNodes, type TestService, type TwoNodes } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';

const create = (url: string, key: string, body: unknown = validPayment()) => call(url, 'POST', '/v1/payments', { key, body });
const statuses = (replies: { status: number }[]) => replies.reduce<Record<number, number>>((n, r) => ({ ...n, [r.status]: (n[r.status] ?? 0) + 1 }), {});

/** A fresh organization with a quota, routed to the sandbox gateway_a of the given sandbox's service. */
async function quotaTenant(service: TestService, limit: number): Promise<{ tenant: TestTenant; sandbox: Sandbox }> {
  const tenant = await createTenant(service);
  await service.admin.organizations.setBilling({ organizationId: tenant.organizationId, monthlyTxLimit: limit });
  const sandbox = await startSandbox(service, tenant.environmentId, { PIX: 'gateway_a' });
  return { tenant, sandbox };
}

const usage = async (service: TestService, organizationId: string) => (await service.admin.organizations.usage({ organizationId })).used;

describe('monthly quota on one node: no create waits for another, and used is exact', () => {
  let world: SandboxedService;
  beforeAll(async () => {
    world = await startSandboxedService({ env: { RATE_LIMIT_PAYMENTS_CREATE: '1000' } });
  });
  afterAll(() => world?.stop());

  it('40 concurrent creates against a quota of 10: exactly 10 payments, the rest 402 with the exact used', async () => {
    const { tenant, sandbox } = await quotaTenant(world.service, 10);
    const replies = await Promise.all(Array.from({ length: 40 }, () => create(world.service.url, tenant.apiKey)));
    expect(statuses(replies)).toEqual({ 201: 10, 402: 30 });
    for (const refused of replies.filter((r) => r.status === 402)) {
      expect(refused.body).toMatchObject({ error: 'billing_monthly_tx_limit_reached', limit: 10 });
      expect(refused.body.used).toBeLessThanOrEqual(10);
    }
    expect(sandbox.sims.gateway_a.stats().created.payments).toBe(10);
    expect(await usage(world.service, tenant.organizationId)).toBe(10);
    expect((await create(world.service.url, tenant.apiKey)).body).toMatchObject({ error: 'billing_monthly_tx_limit_reached', limit: 10, used: 10 });
    await sandbox.close();
  });

  it('a create that fails gives its admission back: refusals by the gateway and by routing do not use the quota', async () => {
    const { tenant, sandbox } = await quotaTenant(world.service, 3);
    sandbox.sims.gateway_a.injectFault('createPayment', { kind: 'validation' }, 2);
    const refused = await Promise.all([create(world.service.url, tenant.apiKey), create(world.service.url, tenant.apiKey)]);
    expect(refused.map((r) => r.status)).toEqual([400, 400]);
    const card = await create(world.service.url, tenant.apiKey, validPayment({ method: 'card' })); // no CARD route: 409
    expect(card.status).toBe(409);
    expect(await usage(world.service, tenant.organizationId)).toBe(0);
    const replies = await Promise.all(Array.from({ length: 5 }, () => create(world.service.url, tenant.apiKey)));
    expect(statuses(replies)).toEqual({ 201: 3, 402: 2 });
    expect(await usage(world.service, tenant.organizationId)).toBe(3);
    await sandbox.close();
  });

  it('limit changes in the month: a limit set again after being removed admits exactly what it leaves room for', async () => {
    const { tenant, sandbox } = await quotaTenant(world.service, 1000);
    const setLimit = (limit: number | null) => world.service.admin.organizations.setBilling({ organizationId: tenant.organizationId, monthlyTxLimit: limit });
    for (let i = 0; i < 4; i++) expect((await create(world.service.url, tenant.apiKey)).status).toBe(201);
    await setLimit(5);
    expect((await create(world.service.url, tenant.apiKey)).status).toBe(201);
    expect((await create(world.service.url, tenant.apiKey)).status).toBe(402);
    await setLimit(null);
    expect((await create(world.service.url, tenant.apiKey)).status).toBe(201);
    expect(await usage(world.service, tenant.organizationId)).toBe(6);
    await setLimit(8);
    const replies = await Promise.all(Array.from({ length: 3 }, () => create(world.service.url, tenant.apiKey)));
    expect(statuses(replies)).toEqual({ 201: 2, 402: 1 });
    expect((await create(world.service.url, tenant.apiKey)).body).toMatchObject({ error: 'billing_monthly_tx_limit_reached', limit: 8, used: 8 });
    expect(await usage(world.service, tenant.organizationId)).toBe(8);
    await sandbox.close();
  });

  it('a repeated externalId is not a second transaction', async () => {
    const { tenant, sandbox } = await quotaTenant(world.service, 2);
    const body = validPayment();
    const replies = await Promise.all(Array.from({ length: 10 }, () => create(world.service.url, tenant.apiKey, body)));
    expect(replies.every((r) => r.status === 201)).toBe(true);
    expect(await usage(world.service, tenant.organizationId)).toBe(1);
    expect((await create(world.service.url, tenant.apiKey)).status).toBe(201);
    expect((await create(world.service.url, tenant.apiKey)).status).toBe(402);
    await sandbox.close();
  });
});

describe.runIf(onPostgres)('two nodes on one PostgreSQL share Redis counters and the API-key cache epoch', () => {
  let nodes: TwoNodes;
  let first: TestService;
  let second: TestService;
  beforeAll(async () => {
    nodes = await startTwoNodes({ RATE_LIMIT_PAYMENTS_CREATE: '1000' });
    ({ first, second } = nodes);
  });
  afterAll(async () => nodes?.stop());

  it('60 concurrent creates split across both nodes against a quota of 12: exactly 12 payments, used exact', async () => {
    const { tenant, sandbox } = await quotaTenant(first, 12);
    const replies = await Promise.all(Array.from({ length: 60 }, (_, i) => create(i % 2 ? first.url : second.url, tenant.apiKey)));
    expect(statuses(replies)).toEqual({ 201: 12, 402: 48 });
    expect(sandbox.sims.gateway_a.stats().created.payments).toBe(12);
    expect(await usage(first, tenant.organizationId)).toBe(12);
    expect(await usage(second, tenant.organizationId)).toBe(12);
    await sandbox.close();
  });

  it('revocation, new limits and billing changes made through one node apply on the other at once, though it cached the key', async () => {
    const tenant = await createTenant(first);
    for (const node of [first, second]) for (let i = 0; i < 3; i++) expect((await call(node.url, 'GET', '/v1/auth/test', { key: tenant.apiKey })).status).toBe(200);

    await first.admin.apiKeys.setRateLimits({ apiKeyId: tenant.apiKeyId, limits: { default: 77 } });
    expect((await call(second.url, 'GET', '/v1/auth/test', { key: tenant.apiKey })).headers.get('x-ratelimit-limit')).toBe('77');

    await first.admin.organizations.setBilling({ organizationId: tenant.organizationId, billingStatus: 'past_due' });
    expect((await create(second.url, tenant.apiKey)).body.error).toBe('billing_past_due');

    await first.admin.apiKeys.revoke({ apiKeyId: tenant.apiKeyId });
    for (const node of [second, first]) {
      const reply = await call(node.url, 'GET', '/v1/auth/test', { key: tenant.apiKey });
      expect(reply.status).toBe(401);
      expect(reply.body.message).toMatch(/revoked/);
    }
  });

  it('last-used time is written once per minute per key and node, not per request', async () => {
    const tenant = await createTenant(first);
    await call(second.url, 'GET', '/v1/auth/test', { key: tenant.apiKey });
    const firstUse = (await first.admin.apiKeys.list({ environmentId: tenant.environmentId }))[0]!.lastUsedAt;
    expect(firstUse).not.toBeNull();
    for (let i = 0; i < 5; i++) await call(second.url, 'GET', '/v1/auth/test', { key: tenant.apiKey });
    expect((await first.admin.apiKeys.list({ environmentId: tenant.environmentId }))[0]!.lastUsedAt).toBe(firstUse);
  });
});

describe('Redis unreachable: the service fails open, limits and quota still hold', () => {
  let database: TestDatabase;
  let service: TestService;
  let sandbox: Sandbox;
  let tenant: TestTenant;
  beforeAll(async () => {
    database = await createTestDatabase();
    // Nothing listens on port 1: every Redis command fails at once.
    service = await startTestService({ database, env: { REDIS_URL: 'redis://127.0.0.1:1', REDIS_KEY_PREFIX: 'unreachable:' } });
    ({ tenant, sandbox } = await quotaTenant(service, 5));
  });
  afterAll(async () => {
    await sandbox?.close();
    await service?.stop();
    await database?.drop();
  });

  it('keys authenticate from the database, and a revocation applies at once', async () => {
    const other = await service.admin.apiKeys.create({ environmentId: tenant.environmentId });
    expect((await call(service.url, 'GET', '/v1/auth/test', { key: other.secret })).status).toBe(200);
    await service.admin.apiKeys.revoke({ apiKeyId: other.id });
    expect((await call(service.url, 'GET', '/v1/auth/test', { key: other.secret })).status).toBe(401);
  });

  it('rate limits fall back to this node: the 31st create of a minute is 429 with the contract headers', async () => {
    const limited = await createTenant(service);
    for (let i = 1; i <= 30; i++) {
      const reply = await create(service.url, limited.apiKey, { amount: 'x' });
      expect(reply.status).toBe(400);
      expect(reply.headers.get('x-ratelimit-remaining')).toBe(String(30 - i));
    }
    const refused = await create(service.url, limited.apiKey);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-limit')).toBe('30');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('the quota does not depend on Redis: a burst of 6 with 2 left gets exactly 2 payments, and used is exact', async () => {
    const first = await Promise.all(Array.from({ length: 3 }, () => create(service.url, tenant.apiKey)));
    expect(first.every((r) => r.status === 201)).toBe(true);
    const burst = await Promise.all(Array.from({ length: 6 }, () => create(service.url, tenant.apiKey)));
    expect(statuses(burst)).toEqual({ 201: 2, 402: 4 });
    expect(await usage(service, tenant.organizationId)).toBe(5);
    const after = await create(service.url, tenant.apiKey);
    expect(after.status).toBe(402);
    expect(after.body).toMatchObject({ limit: 5, used: 5 });
    expect(service.logs()).toMatch(/Redis unreachable/);
  });
});
