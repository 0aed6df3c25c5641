/**
 * Hostile input, one example per kind, on real HTTP: NUL and control
 * characters, lengths in code points, deep nesting, unknown fields, the
 * return address of hosted checkouts, malformed request lines and the
 * operator API's error bodies. Every answer is also checked for leaks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Payment } from '../../server/domain/payments/payment';
import { Subscription } from '../../server/domain/subscriptions/subscription';
import { call, validPayment } from '../support/http';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { createTenant, type TestTenant } from '../support/tenant';
import { expectSafe, rawRequest } from '../support/hostile';

let sandboxed: SandboxedService;
let production: TestTenant;

beforeAll(async () => {
  sandboxed = await startSandboxedService({
    routes: { PIX: 'gateway_b', CARD: 'gateway_a', SUBSCRIPTION: 'gateway_c' },
    // Every example must reach validation: the per-key create quota is not under test here.
    env: { RATE_LIMIT_PAYMENTS_CREATE: '10000' },
  });
  production = await createTenant(sandboxed.service, 'production');
});
afterAll(() => sandboxed?.stop());

const url = () => sandboxed.service.url;
const key = () => sandboxed.tenant.apiKey;
const stored = async () => {
  const em = sandboxed.service.services.db.fork();
  return { payments: await em.count(Payment, {}), subscriptions: await em.count(Subscription, {}) };
};

const subscription = (overrides: Record<string, unknown> = {}) => ({
  amount: 2990,
  interval: 'monthly',
  externalId: `sub-${Math.random().toString(36).slice(2)}`,
  gateway: { gateway_c: { planId: 'plan_monthly_basic' } },
  customer: { name: 'Maria Silva', email: 'maria@example.com', document: '12345678909', phone: '11987654321' },
  ...overrides,
});

async function refused(method: string, path: string, body: unknown, options: { rawBody?: string; key?: string } = {}) {
  const before = await stored();
  const reply = await call(url(), method, path, { key: options.key ?? key(), body: options.rawBody === undefined ? body : undefined, rawBody: options.rawBody });
  expectSafe(reply, `${method} ${path}`);
  expect(reply.status, reply.text).toBe(400);
  expect(await stored()).toEqual(before);
  return reply;
}
const issuePaths = (reply: { body: { issues?: { path: unknown[] }[] } }) => (reply.body.issues ?? []).map((issue) => issue.path.join('.'));

describe('text that storage or a gateway would refuse', () => {
  it('a NUL anywhere in a stored string is 400 invalid_input naming the field', async () => {
    for (const [body, field] of [
      [validPayment({ externalId: 'order-\u0000' }), 'externalId'],
      [validPayment({ customer: { name: 'Ma\u0000ria', email: 'maria@example.com', document: '12345678909' } }), 'customer.name'],
      [validPayment({ customer: { name: 'Maria', email: 'maria@example.com', document: '123456789\u000009' } }), 'customer.document'],
      [validPayment({ metadata: { note: 'a\u0000b' } }), 'metadata'],
      [validPayment({ metadata: { 'k\u0000': 1 } }), 'metadata'],
      [validPayment({ metadata: { deep: [{ x: '\u0000' }] } }), 'metadata'],
    ] as const) {
      const reply = await refused('POST', '/v1/payments', body);
      expect(reply.body.error).toBe('invalid_input');
      expect(issuePaths(reply)).toContain(field);
    }
    const sub = await refused('POST', '/v1/subscriptions', subscription({ gateway: { gateway_c: { planId: 'plan\u0000' } } }));
    expect(issuePaths(sub)).toContain('gateway.gateway_c.planId');
  });

  it('other control characters and lone surrogates are refused; line breaks only in free text', async () => {
    expect(issuePaths(await refused('POST', '/v1/payments', validPayment({ externalId: 'a\u001bb' })))).toContain('externalId');
    expect(issuePaths(await refused('POST', '/v1/payments', validPayment({ externalId: 'a\nb' })))).toContain('externalId');
    // C1 controls: U+009B opens a terminal escape sequence like ESC [ does.
    expect(issuePaths(await refused('POST', '/v1/payments', validPayment({ customer: { name: 'Maria\u009b31m', email: 'maria@example.com', document: '12345678909' } })))).toContain('customer.name');
    expect(issuePaths(await refused('POST', '/v1/payments', validPayment({ metadata: { note: 'a\u0085b' } })))).toContain('metadata');
    expect(issuePaths(await refused('POST', '/v1/payments', validPayment({ externalId: 'a\ud800b' })))).toContain('externalId');
    const multiline = await call(url(), 'POST', '/v1/payments', { key: key(), body: validPayment({ metadata: { note: 'line 1\nline 2\ttab' } }) });
    expect(multiline.status).toBe(201);
  });

  it('?externalId= with a NUL or longer than any stored one is 400, never a database error', async () => {
    for (const path of ['/v1/payments?externalId=%00', '/v1/subscriptions?externalId=a%00b', `/v1/payments?externalId=${'x'.repeat(256)}`, '/v1/payments?externalId=%1B']) {
      const reply = await call(url(), 'GET', path, { key: key() });
      expectSafe(reply, path);
      expect(reply.status, path).toBe(400);
      expect(issuePaths(reply)).toContain('externalId');
    }
  });

  it('lengths count code points, like the database: 255 emoji fit, 256 do not', async () => {
    const emoji = '\u{1F600}';
    const fits = await call(url(), 'POST', '/v1/payments', { key: key(), body: validPayment({ externalId: emoji.repeat(255), customer: { name: emoji.repeat(255), email: 'maria@example.com', document: '12345678909' } }) });
    expect(fits.status, fits.text).toBe(201);
    expect(issuePaths(await refused('POST', '/v1/payments', validPayment({ externalId: emoji.repeat(256) })))).toContain('externalId');
  });

  it('a planId longer than its column is refused before it reaches storage', async () => {
    const reply = await refused('POST', '/v1/subscriptions', subscription({ gateway: { gateway_c: { planId: 'p'.repeat(256) } } }));
    expect(issuePaths(reply)).toContain('gateway.gateway_c.planId');
  });
});

describe('nesting', () => {
  const deep = (levels: number, open = '[', close = ']') => `${open.repeat(levels)}${close.repeat(levels)}`;

  it('a body nested thousands of levels deep is 400 before it is parsed, wherever the nesting is', async () => {
    for (const rawBody of [
      deep(5000),
      `{"metadata":${deep(5000, '{"a":', '}').replace(/\{"a":\}/, '{}')}}`,
      `{"amount":1,"customer":${'{"x":'.repeat(3000)}1${'}'.repeat(3000)}}`,
      `{"metadata":{"a":${deep(4000)}}}`,
    ]) {
      const reply = await refused('POST', '/v1/payments', undefined, { rawBody });
      expect(['invalid_input', 'invalid_json']).toContain(reply.body.error);
    }
    const payment = (await call(url(), 'POST', '/v1/payments', { key: key(), body: validPayment({ method: 'card' }) })).body;
    const cancel = await call(url(), 'POST', `/v1/subscriptions/sub_${'a'.repeat(24)}/cancel`, { key: key(), rawBody: deep(10_000) });
    expectSafe(cancel);
    expect(cancel.status).toBe(400);
    const paymentCancel = await call(url(), 'POST', `/v1/payments/${payment.id}/cancel`, { key: key(), rawBody: `{"a":${deep(10_000)}}` });
    expectSafe(paymentCancel);
    expect(paymentCancel.status).toBe(400);
  });

  it('a body in a charset other than UTF-8 is refused before it is decoded, so nesting cannot hide in it', async () => {
    const utf16 = (text: string) => new Uint8Array(Buffer.from(text, 'utf16le'));
    // Read as UTF-8 bytes, the escaped quote of UTF-16 would end the string early and hide the brackets after it.
    const hidden = `{"a":"\\"","metadata":{"b":${deep(15_000)}}}`;
    for (const [path, authorization] of [
      ['/v1/payments', `Bearer ${key()}`],
      ['/internal/trpc/organizations.create', `Bearer ${sandboxed.service.adminToken}`],
    ] as const) {
      for (const body of [utf16(hidden), utf16(JSON.stringify(validPayment()))]) {
        const before = await stored();
        const response = await fetch(`${url()}${path}`, { method: 'POST', headers: { authorization, 'content-type': 'application/json; charset=utf-16le' }, body });
        const reply = { status: response.status, text: await response.text(), headers: response.headers };
        expectSafe(reply, path);
        expect(reply.status, reply.text).toBe(400);
        expect(JSON.parse(reply.text)).toMatchObject({ error: 'invalid_json', message: 'The request body must be JSON encoded as UTF-8.' });
        expect(await stored()).toEqual(before);
      }
    }
    const utf8 = await call(url(), 'POST', '/v1/payments', { key: key(), body: validPayment(), headers: { 'content-type': 'application/json; charset=UTF-8' } });
    expect(utf8.status, utf8.text).toBe(201);
  });

  it('brackets inside strings do not count', async () => {
    const reply = await call(url(), 'POST', '/v1/payments', { key: key(), body: validPayment({ metadata: { note: '['.repeat(1000) } }) });
    expect(reply.status, reply.text).toBe(201);
  });

  it('the gateway webhook and the operator API bound nesting too', async () => {
    const account = sandboxed.sandbox.accountIds.gateway_b;
    const webhook = await call(url(), 'POST', `/webhooks/gateway_b/${account}`, { rawBody: `{"event":${deep(10_000)}}`, headers: { 'content-type': 'application/json' } });
    expectSafe(webhook);
    expect(webhook.status).toBe(400);
    const admin = await call(url(), 'POST', '/internal/trpc/organizations.create', { rawBody: deep(10_000), headers: { authorization: `Bearer ${sandboxed.service.adminToken}` } });
    expectSafe(admin);
    expect(admin.status).toBe(400);
    expect(admin.body.error).toBe('invalid_input');
  });
});

describe('unknown fields', () => {
  it('are refused at their own path, nested objects included, never dropped', async () => {
    expect(issuePaths(await refused('POST', '/v1/payments', validPayment({ method: 'card', card: { instalments: 3 } })))).toEqual(['card.instalments']);
    expect(issuePaths(await refused('POST', '/v1/payments', validPayment({ amout: 5 })))).toContain('amout');
    expect(issuePaths(await refused('POST', '/v1/payments', validPayment({ customer: { name: 'A', email: 'a@b.co', document: '12345678909', cpf: 'x' } })))).toContain('customer.cpf');
    expect(issuePaths(await refused('POST', '/v1/subscriptions', subscription({ gateway: { gateway_c: { planId: 'plan_monthly_basic', price: 1 } } })))).toContain('gateway.gateway_c.price');
    expect(issuePaths(await refused('POST', `/v1/subscriptions/sub_${'a'.repeat(24)}/cancel`, { atPeriodEnd: false, now: true }))).toContain('now');
  });
});

describe('returnUrl of hosted checkouts', () => {
  it('is accepted as an https URL, and as http on a loopback host in a sandbox', async () => {
    for (const returnUrl of ['https://shop.example.com/thanks?order=1', 'http://localhost:4000/back', 'http://127.0.0.1/back']) {
      const reply = await call(url(), 'POST', '/v1/payments', { key: key(), body: validPayment({ method: 'card', returnUrl }) });
      expect(reply.status, `${returnUrl}: ${reply.text}`).toBe(201);
    }
    const sub = await call(url(), 'POST', '/v1/subscriptions', { key: key(), body: subscription({ returnUrl: 'https://shop.example.com/thanks' }) });
    expect(sub.status, sub.text).toBe(201);
  });

  it('refuses what is not an absolute http(s) URL, and plain http elsewhere than a sandbox loopback', async () => {
    for (const returnUrl of ['/relative', 'javascript:alert(1)', 'ftp://example.com/', 'https://user:pass@example.com/', 'http://example.com/back', `https://e.com/${'a'.repeat(2100)}`]) {
      expect(issuePaths(await refused('POST', '/v1/payments', validPayment({ method: 'card', returnUrl }))), returnUrl).toContain('returnUrl');
    }
    const inProduction = await refused('POST', '/v1/payments', validPayment({ method: 'card', returnUrl: 'http://localhost/back' }), { key: production.apiKey });
    expect(issuePaths(inProduction)).toEqual(['returnUrl']);
    expect(issuePaths(await refused('POST', '/v1/subscriptions', subscription({ returnUrl: 'http://example.com/' })))).toContain('returnUrl');
  });
});

describe('malformed requests on the port', () => {
  it('the asterisk form and the absolute form are 404 not_found in the contract shape', async () => {
    for (const line of ['GET * HTTP/1.1', 'OPTIONS * HTTP/1.1', 'GET http://example.com/v1/health HTTP/1.1', 'POST //v1/payments HTTP/1.1']) {
      const reply = await rawRequest(url(), `${line}\r\nHost: x\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      expectSafe(reply, line);
      expect(reply.status, line).toBe(404);
      expect(JSON.parse(reply.text).error).toBe('not_found');
    }
  });

  it('an unparsable request line, huge headers and bad percent-encoding are 4xx with a contract body', async () => {
    for (const bytes of [
      'GARBAGE\r\n\r\n',
      'GET /v1/health HTTP/9.9\r\nHost: x\r\n\r\n',
      `GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`,
      'GET /v1/he\u0000alth HTTP/1.1\r\nHost: x\r\n\r\n',
      'POST /webhooks/gateway_b/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}',
      'GET /v1/payments/%ZZ HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer x\r\n\r\n',
    ]) {
      const reply = await rawRequest(url(), bytes);
      expectSafe(reply, JSON.stringify(bytes.slice(0, 60)));
      expect(reply.status, bytes.slice(0, 60)).toBeGreaterThanOrEqual(400);
      expect(reply.status).toBeLessThan(500);
    }
  });
});

describe('the operator API', () => {
  const admin = (path: string, options: { token?: string | null; body?: unknown; rawBody?: string; method?: string } = {}) =>
    call(url(), options.method ?? (options.body !== undefined || options.rawBody !== undefined ? 'POST' : 'GET'), `/internal/trpc/${path}`, {
      body: options.body,
      rawBody: options.rawBody,
      headers: options.token === null ? {} : { authorization: `Bearer ${options.token ?? sandboxed.service.adminToken}` },
    });

  it('answers errors as {error, message}: 401, 404, 400 with issues, 409, never a stack or tRPC fields', async () => {
    const unauthenticated = await admin('organizations.list', { token: null });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.body).toEqual({ error: 'unauthorized', message: 'Missing or wrong admin token.' });
    const wrongToken = await admin('organizations.create', { token: 'nope', rawBody: '[[[[' });
    expect(wrongToken.status).toBe(401);

    const unknown = await admin('nothing.here');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('not_found');
    const missing = await admin(`organizations.usage?input=${encodeURIComponent(JSON.stringify({ organizationId: 'org_nope' }))}`);
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('not_found');

    const invalid = await admin('organizations.create', { body: { name: 'A\u0000', extra: 1 } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toBe('invalid_input');
    expect(issuePaths(invalid)).toEqual(expect.arrayContaining(['name', 'extra']));
    expect((await admin('organizations.create', { rawBody: '{"name":' })).body.error).toBe('invalid_json');

    const org = await admin('organizations.create', { body: { name: 'Twice' } });
    const project = await admin('projects.create', { body: { organizationId: org.body.result.data.id, name: 'P' } });
    await admin('environments.create', { body: { projectId: project.body.result.data.id, kind: 'sandbox' } });
    const conflict = await admin('environments.create', { body: { projectId: project.body.result.data.id, kind: 'sandbox' } });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toBe('conflict');

    for (const reply of [unauthenticated, wrongToken, unknown, missing, invalid, conflict]) expectSafe(reply);
  });

  it('refuses NUL and over-long ids before they reach the database', async () => {
    for (const input of [{ organizationId: 'org_\u0000' }, { organizationId: 'o'.repeat(65) }]) {
      const reply = await admin(`organizations.usage?input=${encodeURIComponent(JSON.stringify(input))}`);
      expectSafe(reply);
      expect(reply.status).toBe(400);
      expect(issuePaths(reply)).toContain('organizationId');
    }
  });
});
