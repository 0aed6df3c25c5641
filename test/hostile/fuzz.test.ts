/**
 * Property: whatever arrives on the port — hostile bodies, paths, query
 * strings and headers, on every /v1 route, the gateway webhook and the
 * operator API — the answer is never a 5xx, an error is exactly the
 * contract's shape, nothing internal leaks, and a refused request stores
 * nothing. FUZZ_RUNS sets the number of requests (default 1500, enough for
 * CI on each database; run FUZZ_RUNS=10000 locally), FUZZ_SEED replays a run.
 */
import fc from 'fast-check';
import { fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Payment } from '../../server/domain/payments/payment';
import { Subscription } from '../../server/domain/subscriptions/subscription';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { problemsOf } from '../support/hostile';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1500);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;

let sandboxed: SandboxedService;
let paymentId: string;
let subscriptionId: string;

beforeAll(async () => {
  sandboxed = await startSandboxedService({
    routes: { PIX: 'gateway_b', CARD: 'gateway_a', SUBSCRIPTION: 'gateway_c' },
    // The quotas are not under test here: every request must reach validation.
    env: { RATE_LIMIT_PAYMENTS_CREATE: '1000000', RATE_LIMIT_PAYMENTS_SYNC: '1000000', RATE_LIMIT_PAYMENTS_CANCEL: '1000000', RATE_LIMIT_DEFAULT: '1000000' },
  });
  const headers = { authorization: `Bearer ${sandboxed.tenant.apiKey}`, 'content-type': 'application/json' };
  const payment = await fetch(`${sandboxed.service.url}/v1/payments`, { method: 'POST', headers, body: JSON.stringify(validPayment()) });
  paymentId = ((await payment.json()) as { id: string }).id;
  const subscription = await fetch(`${sandboxed.service.url}/v1/subscriptions`, { method: 'POST', headers, body: JSON.stringify(validSubscription()) });
  subscriptionId = ((await subscription.json()) as { id: string }).id;
}, 60_000);
afterAll(() => sandboxed?.stop());

function validPayment(): Record<string, unknown> {
  return {
    amount: 1990,
    method: 'pix',
    externalId: `fuzz-${Math.random().toString(36).slice(2)}`,
    customer: { name: 'Maria Silva', email: 'maria@example.com', document: '12345678909', phone: '11987654321' },
    metadata: { order: 1 },
  };
}
function validSubscription(): Record<string, unknown> {
  return {
    amount: 2990,
    interval: 'monthly',
    externalId: `fuzz-${Math.random().toString(36).slice(2)}`,
    gateway: { gateway_c: { planId: 'plan_monthly_basic' } },
    customer: { name: 'Maria Silva', email: 'maria@example.com', document: '12345678909', phone: '11987654321' },
  };
}

// ---- hostile pieces -------------------------------------------------------

/** Percent-encodes any text; a lone surrogate becomes the bytes of an invalid UTF-8 sequence, itself hostile input. */
function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return encodeURIComponent(text.replace(/[\ud800-\udfff]/g, '\u0000')).replace(/%00/g, '%ED%A0%80');
  }
}

const nasty = fc.constantFrom(
  '\u0000', 'a\u0000b', '\u0000'.repeat(40), '\u001b[31m', '\r\n', '\t', '\u007f', '\ud800', '\udfff', 'a\ud83d', '\u{1F600}'.repeat(256),
  'x'.repeat(256), 'x'.repeat(2100), 'é'.repeat(300), '', ' ', '%00', '%', '../../etc/passwd', '\\', '"', "'; drop table payments; --",
  '{"a":1}', '[]', 'null', 'NaN', '__proto__', 'constructor', '\u202e', '\ufeff', 'javascript:alert(1)', 'http://localhost/', 'https://example.com/',
);
const hostileString = fc.oneof(nasty, fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ maxLength: 40 }));
const hostileKey = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'instalments', 'amout', '', '\u0000', 'card', 'x'.repeat(300)), fc.string({ maxLength: 12 }));

const leaf: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(1e308, -0, 2 ** 53 + 1, '1990', 'false', 'true', 'PIX', 'CARD', 'monthly'),
);
const hostileValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(hostileKey, tie('value'), { maxKeys: 4 }),
})).value;

/** Raw text nested `levels` deep, in one of several shapes. */
const deepText = fc.tuple(fc.integer({ min: 30, max: 6000 }), fc.constantFrom('[', '{"a":', '{"metadata":', '{"customer":')).map(([levels, open]) => {
  const close = open === '[' ? ']' : '}';
  return `${open.repeat(levels)}${open === '[' ? '' : '1'}${close.repeat(levels)}`;
});

const brokenJson = fc.constantFrom('{', '{"amount":', '[1,2', '{"a":1,}', 'nul', '\u0000', '{"amount":1}{}', '"\\ud800"', '{"a":"\\u0000"}', '\ufeff{}', '1e99999', 'true');

/** A known-good body with one path replaced, removed or joined by an unknown field. */
function mutated(base: () => Record<string, unknown>) {
  const paths = ['amount', 'method', 'currency', 'externalId', 'customer', 'customer.name', 'customer.email', 'customer.document', 'customer.phone', 'metadata', 'metadata.order', 'card', 'card.installments', 'returnUrl', 'interval', 'trialDays', 'gateway', 'gateway.gateway_c', 'gateway.gateway_c.planId', 'reason'];
  return fc.tuple(fc.constantFrom(...paths), fc.constantFrom('replace', 'remove', 'unknown'), hostileValue, hostileKey).map(([path, action, value, key]) => {
    const body = base();
    const segments = path.split('.');
    let target: Record<string, unknown> = body;
    for (const segment of segments.slice(0, -1)) {
      if (typeof target[segment] !== 'object' || target[segment] === null) target[segment] = {};
      target = target[segment] as Record<string, unknown>;
    }
    const last = segments.at(-1)!;
    if (action === 'replace') target[last] = value;
    else if (action === 'remove') delete target[last];
    else target[key === '' ? 'extra' : key] = value;
    return JSON.stringify(body);
  });
}

const body = (base: () => Record<string, unknown>) =>
  fc.oneof(
    { weight: 6, arbitrary: mutated(base) },
    { weight: 2, arbitrary: hostileValue.map((value) => JSON.stringify(value) ?? '') },
    { weight: 2, arbitrary: deepText },
    { weight: 1, arbitrary: brokenJson },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
    { weight: 1, arbitrary: fc.constant('') },
  );

/** A path segment: a real id, something id-shaped, or hostile text percent-encoded (or not). */
const segment = (real: () => string) =>
  fc.oneof(
    fc.constant(null).map(() => real()),
    fc.constantFrom('pay_' + 'a'.repeat(24), 'sub_' + 'a'.repeat(24), '%00', '%E0%A4%A', '%ZZ', '..', '%2e%2e', 'x'.repeat(300), '*', '%F0%9F%98%80'),
    hostileString.map(encode),
  );

const queryValue = fc.oneof(nasty.map(encode), fc.constantFrom('%00', '%', '%ZZ', 'a&externalId=b', '%ud800', ''), fc.string({ maxLength: 20 }).map(encode));

const headerValue = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 200 });
const extraHeaders = fc.record(
  {
    'content-type': fc.constantFrom('application/json', 'text/plain', 'application/json; charset=utf-16', 'application/json; charset=latin1', 'multipart/form-data', '*/*'),
    'content-encoding': fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-nope'),
    'x-request-id': headerValue,
    accept: headerValue,
    'x-forwarded-for': headerValue,
  },
  { requiredKeys: [] },
);

interface FuzzRequest {
  method: string;
  path: string;
  body?: string;
  headers: Record<string, string>;
  auth: 'key' | 'admin' | 'none' | 'garbage';
}

const v1Requests: fc.Arbitrary<FuzzRequest> = fc.oneof(
  fc.record({ method: fc.constant('POST'), path: fc.constant('/v1/payments'), body: body(validPayment) }),
  fc.record({ method: fc.constant('POST'), path: fc.constant('/v1/subscriptions'), body: body(validSubscription) }),
  fc.record({
    method: fc.constant('POST'),
    path: fc.tuple(segment(() => paymentId), fc.constantFrom('cancel', 'sync')).map(([id, action]) => `/v1/payments/${id}/${action}`),
    body: fc.oneof(fc.constant(''), body(() => ({}))),
  }),
  fc.record({
    method: fc.constant('POST'),
    path: segment(() => paymentId).map((id) => `/v1/payments/${id}/refunds`),
    body: body(() => ({ externalId: `hostile-refund-${Math.random().toString(36).slice(2)}`, amount: 1, reason: 'hostile' })),
  }),
  fc.record({ method: fc.constantFrom('GET', 'HEAD'), path: segment(() => 'ref_000000000000000000000000').map((id) => `/v1/refunds/${id}`) }),
  fc.record({ method: fc.constant('GET'), path: fc.tuple(queryValue, fc.constantFrom('externalId', 'externalid', 'x')).map(([value, name]) => `/v1/refunds?${name}=${value}`) }),
  fc.record({ method: fc.constant('POST'), path: segment(() => subscriptionId).map((id) => `/v1/subscriptions/${id}/cancel`), body: fc.oneof(fc.constant(''), body(() => ({ atPeriodEnd: false }))) }),
  fc.record({ method: fc.constantFrom('GET', 'HEAD'), path: fc.tuple(fc.constantFrom('payments', 'subscriptions'), segment(() => paymentId)).map(([kind, id]) => `/v1/${kind}/${id}`) }),
  fc.record({ method: fc.constant('GET'), path: fc.tuple(fc.constantFrom('payments', 'subscriptions'), queryValue, fc.constantFrom('externalId', 'externalid', 'externalId[]', 'x')).map(([kind, value, name]) => `/v1/${kind}?${name}=${value}`) }),
  fc.record({ method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'), path: fc.constantFrom('/v1/health', '/v1/auth/test', '/v1/openapi.json', '/v1/payments', '/v1/nope', '/', '/docs') }),
).map((request) => ({ ...request, headers: {}, auth: 'key' as const }));

const webhookRequests: fc.Arbitrary<FuzzRequest> = fc
  .record({
    gateway: fc.constantFrom('gateway_a', 'gateway_b', 'gateway_c', 'gateway_x', '%00'),
    account: fc.oneof(fc.constant(null), segment(() => 'gwa_unknown')),
    body: fc.oneof(body(() => ({ event: 'payment.paid', id: 'x' })), deepText),
    signature: fc.oneof(headerValue, fc.constant('')),
  })
  .map(({ gateway, account, body: text, signature }) => ({
    method: 'POST',
    path: `/webhooks/${gateway}/${account ?? sandboxed.sandbox.accountIds[(gateway.startsWith('gateway_') && gateway !== 'gateway_x' ? gateway : 'gateway_a') as 'gateway_a']}`,
    body: text,
    headers: signature ? { 'x-signature': signature, 'x-webhook-signature': signature, authorization: `Bearer ${signature}` } : ({} as Record<string, string>),
    auth: 'none' as const,
  }));

const operatorProcedures = ['organizations.create', 'organizations.usage', 'organizations.setBilling', 'projects.create', 'projects.list', 'apiKeys.create', 'apiKeys.revoke', 'gateways.list', 'webhooks.createEndpoint', 'webhooks.listDeliveries', 'simulators.payment', 'nope.nothing', 'organizations.list'];
const operatorInput = fc.oneof(
  hostileValue,
  fc.record({ name: hostileString, organizationId: hostileString, environmentId: hostileString, projectId: hostileString }, { requiredKeys: [] }),
  fc.record({ organizationId: hostileString, extra: hostileValue }, { requiredKeys: [] }),
);
const operatorRequests: fc.Arbitrary<FuzzRequest> = fc.oneof(
  fc.record({ method: fc.constant('POST'), procedure: fc.constantFrom(...operatorProcedures), body: fc.oneof(operatorInput.map((input) => JSON.stringify(input) ?? ''), deepText, brokenJson) }),
  fc.record({ method: fc.constant('GET'), procedure: fc.constantFrom(...operatorProcedures), query: fc.oneof(operatorInput.map((input) => `input=${encode(JSON.stringify(input) ?? '')}`), deepText.map((text) => `input=${encode(text)}`), queryValue.map((value) => `input=${value}`), fc.constantFrom('batch=1&input=%7B%7D', 'input=%', '')) }),
).chain((request) =>
  fc.constantFrom<FuzzRequest['auth']>('admin', 'admin', 'admin', 'none', 'garbage').map((auth) => ({
    method: request.method,
    path: `/internal/trpc/${request.procedure}${'query' in request && request.query ? `?${request.query}` : ''}`,
    body: 'body' in request ? request.body : undefined,
    headers: {},
    auth,
  })),
);

const strayRequests: fc.Arbitrary<FuzzRequest> = fc
  .record({
    method: fc.constantFrom('GET', 'POST', 'DELETE'),
    path: fc.oneof(
      fc.array(segment(() => 'x'), { minLength: 1, maxLength: 4 }).map((segments) => `/${segments.join('/')}`),
      fc.constantFrom('/internal', '/internal/', '/internal/webhooks/listen', '/internal/trpc', '/webhooks', '/webhooks/gateway_a', '/v1', '/v1/', '/docs/x', '/%2e%2e/%2e%2e/etc/passwd', '/v1/payments/../health'),
    ),
    body: fc.option(body(() => ({})), { nil: undefined }),
    auth: fc.constantFrom('key', 'admin', 'none', 'garbage'),
  })
  .map((request) => ({ ...request, headers: {} }));

const requests = fc.tuple(fc.oneof({ weight: 6, arbitrary: v1Requests }, { weight: 2, arbitrary: webhookRequests }, { weight: 2, arbitrary: operatorRequests }, { weight: 1, arbitrary: strayRequests }), extraHeaders, headerValue).map(
  ([request, headers, garbage]) => ({ ...request, headers: { ...headers, ...request.headers }, garbage }),
);

// ---- the property ---------------------------------------------------------

async function storedCounts() {
  const em = sandboxed.service.services.db.fork();
  return `${await em.count(Payment, {})}/${await em.count(Subscription, {})}`;
}

describe(`hostile requests (${RUNS} runs)`, () => {
  it('never answer 5xx, always in the contract shape, never leak, and store nothing when refused', async () => {
    const figures = { requests: 0, status5xx: 0, leaks: 0, refused: 0, statuses: {} as Record<number, number> };
    const failures: string[] = [];
    await fc.assert(
      fc.asyncProperty(requests, async (request) => {
        const headers: Record<string, string> = { ...request.headers };
        if (request.auth === 'key') headers.authorization = `Bearer ${sandboxed.tenant.apiKey}`;
        else if (request.auth === 'admin') headers.authorization = `Bearer ${sandboxed.service.adminToken}`;
        else if (request.auth === 'garbage') headers.authorization = `Bearer ${request.garbage}`;
        else if (!headers.authorization) delete headers.authorization;
        const before = await storedCounts();
        const withBody = request.body !== undefined && !['GET', 'HEAD'].includes(request.method);
        const response = await fetch(`${sandboxed.service.url}${request.path}`, { method: request.method, headers, body: withBody ? request.body : undefined });
        // The operator's event stream (an authorized GET /internal/webhooks/listen) stays open by design: check its head, then hang up.
        const streaming = response.headers.get('content-type')?.startsWith('text/event-stream') ?? false;
        if (streaming) await response.body?.cancel();
        const text = streaming ? '' : await response.text();
        figures.requests++;
        figures.statuses[response.status] = (figures.statuses[response.status] ?? 0) + 1;
        const problems = request.method === 'HEAD' ? (response.status >= 500 ? [`status ${response.status}`] : []) : problemsOf(response.status, text, response.headers);
        if (response.status >= 500) figures.status5xx++;
        if (problems.some((problem) => problem.startsWith('leaks'))) figures.leaks++;
        if (response.status >= 400) {
          figures.refused++;
          const after = await storedCounts();
          if (after !== before) problems.push(`stored something (${before} → ${after}) for a refused request`);
        }
        if (problems.length > 0) {
          failures.push(`${request.method} ${request.path.slice(0, 200)} ${JSON.stringify(request.body?.slice(0, 200))} → ${response.status} ${text.slice(0, 300)}: ${problems.join(', ')}`);
          return false;
        }
        return true;
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    ).catch((error: Error) => {
      throw new Error(`${failures.at(-1) ?? ''}\n${error.message.split('\n').slice(0, 6).join('\n')}`);
    });
    console.log(`fuzz figures: ${JSON.stringify(figures)}`);
    expect(figures.status5xx).toBe(0);
    expect(figures.leaks).toBe(0);
  }, Math.max(120_000, RUNS * 100));
});
