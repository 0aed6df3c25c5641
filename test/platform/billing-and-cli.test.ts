import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MonthlyUsage } from '../../server/db/entities';
import { usagePeriod } from '../../server/domain/quota';
import { cli } from '../support/cli';
import { call, validPayment } from '../support/http';
import { startTestService, type TestService } from '../support/service';

let service: TestService;
let organizationId: string;
let apiKey: string;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

describe('operator CLI', () => {
  it('creates an organization, project, environment and a key that works, printed once', async () => {
    const org = await cli(service, ['org', 'create', '--name', 'Acme']);
    expect(org.code).toBe(0);
    expect(org.json).toMatchObject({ id: expect.stringMatching(/^org_/), billingStatus: 'active', monthlyTxLimit: null });
    organizationId = org.json.id;
    const project = await cli(service, ['project', 'create', '--org', organizationId, '--name', 'Shop']);
    expect(project.json.id).toMatch(/^prj_/);
    const env = await cli(service, ['env', 'create', '--project', project.json.id, '--kind', 'sandbox']);
    expect(env.json).toMatchObject({ id: expect.stringMatching(/^env_/), kind: 'sandbox' });
    const key = await cli(service, ['key', 'create', '--env', env.json.id, '--name', 'backend']);
    expect(key.json.secret).toMatch(/^sk_test_[0-9a-z]{32}$/);
    apiKey = key.json.secret;

    const listed = await cli(service, ['key', 'list', '--env', env.json.id]);
    expect(listed.json).toHaveLength(1);
    expect(JSON.stringify(listed.json)).not.toContain(apiKey);
    expect(listed.json[0].displayPrefix).toBe(apiKey.slice(0, 12));

    expect((await call(service.url, 'GET', '/v1/auth/test', { key: apiKey })).status).toBe(200);
  });

  it('refuses unknown ids and a wrong admin token with a readable error', async () => {
    const orgs = await cli(service, ['org', 'list']);
    expect(orgs.json.map((o: { id: string }) => o.id)).toContain(organizationId);
    const missing = await cli(service, ['project', 'create', '--org', 'org_missing', '--name', 'x']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('org_missing');
    const wrong = await cli({ ...service, adminToken: 'not-the-token' } as TestService, ['org', 'list']);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/admin token/);
  });

  it('refuses a second environment of the same kind, and revokes a key at once', async () => {
    const org = await cli(service, ['org', 'create', '--name', 'Revokers']);
    const project = await cli(service, ['project', 'create', '--org', org.json.id, '--name', 'p']);
    const environment = await cli(service, ['env', 'create', '--project', project.json.id, '--kind', 'production']);
    const duplicate = await cli(service, ['env', 'create', '--project', project.json.id, '--kind', 'production']);
    expect(duplicate.code).not.toBe(0);
    const key = await cli(service, ['key', 'create', '--env', environment.json.id]);
    expect(key.json.secret).toMatch(/^sk_live_/);
    expect((await call(service.url, 'GET', '/v1/auth/test', { key: key.json.secret })).status).toBe(200);
    const revoked = await cli(service, ['key', 'revoke', key.json.id]);
    expect(revoked.json.revokedAt).not.toBeNull();
    expect((await call(service.url, 'GET', '/v1/auth/test', { key: key.json.secret })).status).toBe(401);
  });
});

describe('platform billing gate (402)', () => {
  const subscription = { amount: 4990, interval: 'monthly', externalId: 's-1', customer: { name: 'A', email: 'a@b.co', document: '12345678909' } };

  it.each([
    ['inactive', 'billing_inactive'],
    ['past_due', 'billing_past_due'],
    ['incomplete', 'billing_incomplete'],
    ['canceled', 'billing_canceled'],
    ['expired', 'billing_expired'],
  ])('billing status %s set by the CLI → 402 %s on payment and subscription creation', async (status, code) => {
    const set = await cli(service, ['org', 'billing', organizationId, '--status', status]);
    expect(set.json.billingStatus).toBe(status);
    const payment = await call(service.url, 'POST', '/v1/payments', { key: apiKey, body: validPayment() });
    expect(payment.status).toBe(402);
    expect(payment.body).toEqual({ error: code, message: expect.any(String) });
    const sub = await call(service.url, 'POST', '/v1/subscriptions', { key: apiKey, body: subscription });
    expect(sub.status).toBe(402);
    expect(sub.body.error).toBe(code);
    // auth/test is not gated by billing
    expect((await call(service.url, 'GET', '/v1/auth/test', { key: apiKey })).status).toBe(200);
  });

  it('validation (400) comes before billing (402)', async () => {
    await cli(service, ['org', 'billing', organizationId, '--status', 'past_due']);
    const reply = await call(service.url, 'POST', '/v1/payments', { key: apiKey, body: { amount: 0 } });
    expect(reply.status).toBe(400);
  });

  it('the monthly quota answers 402 with limit and used, on payments only', async () => {
    await cli(service, ['org', 'billing', organizationId, '--status', 'active', '--monthly-limit', '3']);
    // Three transactions already created this month.
    const em = service.services.db.fork();
    em.create(MonthlyUsage, { organization: organizationId, period: usagePeriod(new Date()), transactions: 3 });
    await em.flush();
    const usage = await cli(service, ['org', 'usage', organizationId]);
    expect(usage.json).toMatchObject({ used: 3, limit: 3 });

    const reply = await call(service.url, 'POST', '/v1/payments', { key: apiKey, body: validPayment() });
    expect(reply.status).toBe(402);
    expect(reply.body).toEqual({ error: 'billing_monthly_tx_limit_reached', message: expect.any(String), limit: 3, used: 3 });
    const sub = await call(service.url, 'POST', '/v1/subscriptions', { key: apiKey, body: subscription });
    expect(sub.status).toBe(409); // the quota counts payment transactions only

    const raised = await cli(service, ['org', 'billing', organizationId, '--monthly-limit', '4']);
    expect(raised.json.monthlyTxLimit).toBe(4);
    expect((await call(service.url, 'POST', '/v1/payments', { key: apiKey, body: validPayment() })).status).toBe(409);
    await cli(service, ['org', 'billing', organizationId, '--monthly-limit', 'none']);
  });
});
