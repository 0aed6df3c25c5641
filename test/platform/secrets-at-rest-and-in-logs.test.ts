import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, validPayment } from '../support/http';
import { startTestService, type TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';

let service: TestService;
let tenant: TestTenant;
const document = '987.654.321-00';

beforeAll(async () => {
  service = await startTestService();
  tenant = await createTenant(service);
  await call(service.url, 'GET', '/v1/auth/test', { key: tenant.apiKey });
  await call(service.url, 'POST', '/v1/payments', {
    key: tenant.apiKey,
    body: validPayment({ customer: { name: 'João', email: 'joao@example.com', document } }),
  });
  await call(service.url, 'GET', `/v1/auth/test?externalId=${document}`, { key: tenant.apiKey });
  await call(service.url, 'GET', '/v1/auth/test', { key: `${tenant.apiKey.slice(0, -1)}x` });
});
afterAll(() => service?.stop());

/** Every row of every table of the service's database, as text. */
async function wholeDatabaseAsText(): Promise<string> {
  const connection = service.services.db.fork().getConnection();
  const tables = await connection.execute<{ tablename: string }[]>("select tablename from pg_tables where schemaname = 'public'");
  const dumps: string[] = [];
  for (const { tablename } of tables) {
    const rows = await connection.execute<{ row: string }[]>(`select row_to_json(t)::text as row from "${tablename}" t`);
    dumps.push(...rows.map((r) => r.row));
  }
  return dumps.join('\n');
}

describe('secrets and personal data', () => {
  it('no API key is stored in plaintext', async () => {
    const text = await wholeDatabaseAsText();
    expect(text).toContain(tenant.apiKeyId); // the dump really covers the key table
    expect(text).not.toContain(tenant.apiKey);
  });

  it('logs carry a request id, status and latency, but never the key, the header or the tax document', async () => {
    const logs = service.logs();
    const lines = logs.trim().split('\n').map((l) => JSON.parse(l));
    const requestLines = lines.filter((l) => l.req && l.res);
    expect(requestLines.length).toBeGreaterThanOrEqual(4);
    for (const line of requestLines) {
      expect(line.req.id).toBeTruthy();
      expect(typeof line.responseTime).toBe('number');
      expect(typeof line.res.statusCode).toBe('number');
    }
    expect(logs).not.toContain(tenant.apiKey);
    expect(logs).not.toContain(tenant.apiKey.slice(12));
    expect(logs).not.toContain('Bearer');
    expect(logs).not.toContain(document);
    expect(logs).not.toContain(document.replace(/\D/g, ''));
  });

  it('echoes a plain caller request id and replaces an unsafe one', async () => {
    const kept = await call(service.url, 'GET', '/v1/health', { headers: { 'x-request-id': 'checkout-42' } });
    expect(kept.headers.get('x-request-id')).toBe('checkout-42');
    const replaced = await call(service.url, 'GET', '/v1/health', { headers: { 'x-request-id': 'a b;DROP' + 'x'.repeat(200) } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
