/**
 * Cursors are opaque, but a caller can forge one: base64url JSON with the
 * right list name and a key or id that no row ever had (a NUL byte, year
 * 0000, 30 February, an amount beyond any integer column, a key that is not a
 * string). Every list answers 400 invalid_input naming `cursor`, on both
 * databases: PostgreSQL refuses such values with an error of its own, so they
 * must be refused before a query is sent (a 500 otherwise).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/http';
import { startTestService, type TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';

let service: TestService;
let tenant: TestTenant;

beforeAll(async () => {
  service = await startTestService();
  tenant = await createTenant(service);
}, 60_000);
afterAll(async () => {
  await service?.stop();
});

const forged = (fields: Record<string, unknown> | unknown) => Buffer.from(JSON.stringify(fields)).toString('base64url');

/** Cursors of `list` (with `sort`, if it names one) that decode as JSON but hold no position any row could have. */
function craftedCursors(list: string, key: 'instant' | 'integer', sort?: string): string[] {
  const good = key === 'instant' ? '2026-01-02T03:04:05.678Z' : '1990';
  const at = (k: unknown, i: unknown = 'pay_000000000000000000000000') => forged({ l: list, ...(sort ? { s: sort } : {}), k, i });
  const keys =
    key === 'instant'
      ? ['0000-01-01T00:00:00.000Z', '2026-02-30T00:00:00.000Z', '2026-13-01T00:00:00.000Z', '2026-01-01T24:00:00.000Z', '2026-01-01T00:00:00Z\u0000', '-000001-01-01T00:00:00.000Z']
      : ['99999999999999999999', '9999999999999999', '-1', '1\u0000'];
  return [
    ...keys.map((k) => at(k)),
    at(good, 'pay_\u0000'),
    at(good, 'pay_abc\u0000def'),
    at(good, 'pay_ünïcode'),
    at(good, 'x'.repeat(65)),
    at(12, 'pay_x'),
    at(good, 42),
    at(good, ['pay_x']),
    forged([list, good, 'pay_x']),
    forged(null),
    forged('payments'),
    Buffer.from('{"l":"' + list + '","k":"' + good + '","i":"pay_x"').toString('base64url'),
  ];
}

async function expectRefused(procedure: string, input: Record<string, unknown>, cursor: string) {
  const query = encodeURIComponent(JSON.stringify({ ...input, cursor }));
  const reply = await call(service.url, 'GET', `/internal/trpc/${procedure}?input=${query}`, { key: service.adminToken });
  const label = `${procedure} ${Buffer.from(cursor, 'base64url').toString('utf8')}`;
  expect(reply.status, label).toBe(400);
  expect(reply.body, label).toMatchObject({ error: 'invalid_input', message: expect.stringMatching(/cursor/), issues: [{ path: ['cursor'], message: expect.any(String) }] });
}

describe('a forged cursor is 400 invalid_input at cursor, never a 500', () => {
  it('on the payments list, in each of its orders', async () => {
    for (const [sort, key] of [['created_desc', 'instant'], ['created_asc', 'instant'], ['amount_desc', 'integer'], ['amount_asc', 'integer']] as const) {
      for (const cursor of craftedCursors('payments', key, sort)) await expectRefused('payments.list', { environmentId: tenant.environmentId, sort }, cursor);
    }
  });

  it('on the subscriptions list, in each of its orders', async () => {
    for (const [sort, key] of [['created_desc', 'instant'], ['amount_asc', 'integer']] as const) {
      for (const cursor of craftedCursors('subscriptions', key, sort)) await expectRefused('subscriptions.list', { environmentId: tenant.environmentId, sort }, cursor);
    }
  });

  it('on the audit log, of one organization and of the whole platform', async () => {
    for (const cursor of craftedCursors('audit', 'instant')) {
      await expectRefused('audit.list', { organizationId: tenant.organizationId }, cursor);
      await expectRefused('audit.list', {}, cursor);
    }
  });

  it('on the webhook deliveries list', async () => {
    for (const cursor of craftedCursors('deliveries', 'integer')) await expectRefused('webhooks.listDeliveries', { environmentId: tenant.environmentId }, cursor);
  });

  it('a real cursor still pages', async () => {
    const first = await service.admin.audit.list({ organizationId: tenant.organizationId, limit: 1 });
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await service.admin.audit.list({ organizationId: tenant.organizationId, limit: 1, cursor: first.nextCursor! });
    expect(second.items[0]?.id).not.toBe(first.items[0]?.id);
  });

  it("GET /v1/events' after: a NUL byte or another shape is 400 at after", async () => {
    for (const after of ['evt_\u0000', `evt_${'a'.repeat(23)}\u0000`, '0000-01-01', 'evt_' + 'A'.repeat(24)]) {
      const reply = await call(service.url, 'GET', `/v1/events?after=${encodeURIComponent(after)}`, { key: tenant.apiKey });
      expect(reply.status, after).toBe(400);
      expect(reply.body, after).toMatchObject({ error: 'invalid_input', issues: [expect.objectContaining({ path: ['after'] })] });
    }
  });
});
