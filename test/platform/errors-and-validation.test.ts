import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, validPayment } from '../support/http';
import { startTestService, type TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';

let service: TestService;
let tenant: TestTenant;

beforeAll(async () => {
  service = await startTestService();
  tenant = await createTenant(service);
});
afterAll(() => service?.stop());

const createPayment = (body: unknown, extra: { rawBody?: string; headers?: Record<string, string> } = {}) =>
  call(service.url, 'POST', '/v1/payments', { key: tenant.apiKey, body, ...extra });

/** Decision 1: only `error`, `message` and the code's own extra fields. */
function expectContractError(body: Record<string, unknown>, code: string, extra: string[] = []) {
  expect(body.error).toBe(code);
  expect(Object.keys(body).sort()).toEqual(['error', 'message', ...extra].sort());
}

describe('GET /v1/health', () => {
  it('answers without authentication', async () => {
    const reply = await call(service.url, 'GET', '/v1/health');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ ok: true, service: 'service-payments' });
    expect(reply.headers.get('x-request-id')).toMatch(/.+/);
  });
});

describe('error bodies', () => {
  it('unknown routes are 404 not_found in the contract shape', async () => {
    for (const [method, path] of [['GET', '/v1/nope'], ['POST', '/v1/payments/x/y/z'], ['DELETE', '/v1/payments'], ['GET', '/']]) {
      const reply = await call(service.url, method!, path!, { key: tenant.apiKey });
      expect(reply.status, `${method} ${path}`).toBe(404);
      expectContractError(reply.body, 'not_found');
    }
  });

  it('a body that is not JSON is 400 invalid_json', async () => {
    const reply = await createPayment(undefined, { rawBody: '{"amount": 10', headers: { 'content-type': 'application/json' } });
    expect(reply.status).toBe(400);
    expectContractError(reply.body, 'invalid_json');
  });

  it('reads a JSON body whatever its content type, including charset and form-encoded defaults', async () => {
    for (const contentType of ['application/json; charset=utf-8', 'application/x-www-form-urlencoded', 'text/plain']) {
      const reply = await createPayment(undefined, { rawBody: JSON.stringify(validPayment()), headers: { 'content-type': contentType } });
      // Valid input reaches routing, which has no rule yet: proof the body was read.
      expect(reply.body.error, contentType).toBe('no_routing_rule');
    }
  });

  it('schema violations are 400 invalid_input with {path, message} issues', async () => {
    const reply = await createPayment({ amount: -5, method: 'boleto', customer: { name: '', email: 'nope', document: '123' } });
    expect(reply.status).toBe(400);
    expectContractError(reply.body, 'invalid_input', ['issues']);
    const paths = reply.body.issues.map((i: { path: unknown[] }) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['amount', 'method', 'externalId', 'customer.name', 'customer.email', 'customer.document']));
    for (const issue of reply.body.issues) expect(Object.keys(issue).sort()).toEqual(['message', 'path']);
  });

  it('an empty POST needs no content type and is validated as {}', async () => {
    const reply = await call(service.url, 'POST', '/v1/payments', { key: tenant.apiKey });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe('invalid_input');
  });

  it('a JSON body that is not an object is invalid_input', async () => {
    const reply = await createPayment([validPayment()]);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe('invalid_input');
  });

  it('an oversized body is 400 invalid_input in the same format', async () => {
    const reply = await createPayment(validPayment({ metadata: { blob: 'x'.repeat(70_000) } }));
    expect(reply.status).toBe(400);
    expectContractError(reply.body, 'invalid_input', ['issues']);
  });

  it('an unexpected failure is 500 internal_error with nothing internal in it, logged with the request id', async () => {
    const broken = await startTestService();
    const brokenTenant = await createTenant(broken);
    // Authentication's query now fails under the service's feet.
    await broken.services.db.fork().getConnection().execute('alter table "api_keys" rename to "api_keys_gone"');
    const reply = await call(broken.url, 'GET', '/v1/auth/test', { key: brokenTenant.apiKey, headers: { 'x-request-id': 'req-boom-1' } });
    expect(reply.status).toBe(500);
    expect(reply.body).toEqual({ error: 'internal_error', message: 'Internal error.' });
    expect(reply.text).not.toMatch(/stack|at |mikro|sql|TRPC/i);
    expect(broken.logs()).toContain('req-boom-1');
    await broken.stop();
  });
});

describe('POST /v1/payments input rules', () => {
  const issuesOf = async (body: unknown) => {
    const reply = await createPayment(body);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe('invalid_input');
    return reply.body.issues.map((i: { path: unknown[] }) => i.path.join('.')) as string[];
  };

  it('never coerces: a string amount or a numeric-string installment is refused', async () => {
    expect(await issuesOf(validPayment({ amount: '1990' }))).toContain('amount');
    expect(await issuesOf(validPayment({ amount: true }))).toContain('amount');
    expect(await issuesOf(validPayment({ amount: null }))).toContain('amount');
    expect(await issuesOf(validPayment({ method: 'card', card: { installments: '3' } }))).toContain('card.installments');
  });

  it('amount must be a positive integer of cents', async () => {
    expect(await issuesOf(validPayment({ amount: 0 }))).toContain('amount');
    expect(await issuesOf(validPayment({ amount: 10.5 }))).toContain('amount');
  });

  it('currency is BRL only', async () => {
    expect(await issuesOf(validPayment({ currency: 'USD' }))).toContain('currency');
  });

  it('the tax document needs 11 or 14 digits, punctuation allowed', async () => {
    expect(await issuesOf(validPayment({ customer: { name: 'A', email: 'a@b.co', document: '1234567890' } }))).toContain('customer.document');
    const ok = await createPayment(validPayment({ customer: { name: 'A', email: 'a@b.co', document: '12.345.678/0001-95' } }));
    expect(ok.body.error).toBe('no_routing_rule');
  });

  it('a phone needs at least 10 digits', async () => {
    expect(await issuesOf(validPayment({ customer: { name: 'A', email: 'a@b.co', document: '12345678909', phone: '12345' } }))).toContain('customer.phone');
  });

  it('the card object is refused for pix, and installments stay within 1..24', async () => {
    expect(await issuesOf(validPayment({ method: 'pix', card: { installments: 1 } }))).toContain('card');
    expect(await issuesOf(validPayment({ method: 'card', card: { installments: 25 } }))).toContain('card.installments');
  });

  it('metadata is at most 4 KiB serialized and 4 levels deep', async () => {
    expect(await issuesOf(validPayment({ metadata: { note: 'x'.repeat(4100) } }))).toContain('metadata');
    expect(await issuesOf(validPayment({ metadata: { a: { b: { c: { d: { e: 1 } } } } } }))).toContain('metadata');
    expect(await issuesOf(validPayment({ metadata: 'text' }))).toContain('metadata');
    const ok = await createPayment(validPayment({ metadata: { a: { b: { c: { d: 1 } } } } }));
    expect(ok.body.error).toBe('no_routing_rule');
  });

  it('accepts upper-case methods', async () => {
    const reply = await createPayment(validPayment({ method: 'CARD' }));
    expect(reply.body.error).toBe('no_routing_rule');
    expect(reply.body.message).toContain('CARD');
  });

  it('externalId is 1 to 255 characters', async () => {
    expect(await issuesOf(validPayment({ externalId: '' }))).toContain('externalId');
    expect(await issuesOf(validPayment({ externalId: 'x'.repeat(256) }))).toContain('externalId');
  });
});

describe('POST /v1/subscriptions input rules', () => {
  const subscription = (overrides: Record<string, unknown> = {}) => ({
    amount: 4990,
    interval: 'MONTHLY',
    externalId: 'sub-1',
    customer: { name: 'Maria', email: 'maria@example.com', document: '12345678909' },
    ...overrides,
  });

  it('validates interval, trialDays and metadata, and accepts null trialDays and an ignored card', async () => {
    const bad = await call(service.url, 'POST', '/v1/subscriptions', { key: tenant.apiKey, body: subscription({ interval: 'weekly', trialDays: 366, metadata: { a: { b: { c: { d: { e: 1 } } } } } }) });
    expect(bad.status).toBe(400);
    expect(bad.body.issues.map((i: { path: unknown[] }) => i.path.join('.'))).toEqual(expect.arrayContaining(['interval', 'trialDays', 'metadata']));
    const ok = await call(service.url, 'POST', '/v1/subscriptions', { key: tenant.apiKey, body: subscription({ trialDays: null, card: { installments: 3 } }) });
    expect(ok.status).toBe(409);
    expect(ok.body.error).toBe('no_routing_rule');
  });
});
