/**
 * The document is as strict as the service, as Prism sees it: Prism's
 * validating proxy stands in front of a started service, and every route is
 * sent valid requests and invalid ones (a directed list, then the seeded
 * requests the conformance test also uses). Then:
 * - no answer of the service breaks the document (0 response violations);
 * - a request the service takes breaks no rule of the document (it is not
 *   stricter than the service);
 * - every request the service refuses as invalid input (400 `invalid_input`,
 *   `invalid_json`, `invalid_id`, `missing_query`) is refused by the document
 *   too, unless its reason is one a document cannot state, each listed in
 *   BEYOND_THE_DOCUMENT with why.
 * PRISM_SEED replays another sample, PRISM_RUNS sets its size.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUSTOMER, fuzzedRequests } from '../support/contract-requests';
import { startPrismProxy, violationsOf, type PrismProxy, type Violation } from '../support/prism';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';

const SEED = Number(process.env.PRISM_SEED ?? 20261127);
const RUNS = Number(process.env.PRISM_RUNS ?? 400);
const HIGH_LIMITS = { payments_create: 1_000_000, payments_sync: 1_000_000, payments_cancel: 1_000_000, default: 1_000_000 };
/** The codes of a request refused for its form, before anything is read or changed. */
const VALIDATION_CODES = new Set(['invalid_input', 'invalid_json', 'invalid_id', 'missing_query']);

/**
 * Refusals the document cannot express, by the message of every issue of the
 * answer: they depend on stored state or on where the request is routed, or
 * they measure what JSON Schema cannot (bytes, lone UTF-16 surrogates).
 * The document's descriptions state each of them.
 */
const BEYOND_THE_DOCUMENT: [RegExp, string][] = [
  [/allows at most \d+ installments|is required for .+ on gateway_|is required when subscriptions route to|has no plan|^plan /, 'what the routed gateway requires (routing is configuration, not request)'],
  [/refundable/, 'what is left to refund of the payment (stored state)'],
  [/is not an event of this environment/, 'an `after` that is not an event of the environment (stored state)'],
  [/only cancels immediately|no period to end/, "atPeriodEnd where the subscription's gateway cannot (stored state)"],
  [/must be an https:\/\/ URL/, 'plain http:// outside a sandbox loopback host (the environment of the key)'],
  [/bytes when serialized|request body exceeds \d+ bytes/, 'a size in serialized bytes (JSON Schema counts characters and items)'],
  [/lone surrogates/, 'lone UTF-16 surrogates (a JSON Schema pattern cannot portably see them)'],
];

let world: SandboxedService;
let prism: PrismProxy;
let dir: string;
let counter = 0;
const externalId = (tag: string) => `prism-${tag}-${++counter}`;

interface Exchange {
  what: string;
  status: number;
  body: any;
  error?: string;
  issues: string[];
  violations: Violation[];
}
const exchanges: Exchange[] = [];

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** One request through Prism to the service. */
async function send(method: string, path: string, options: { body?: unknown; raw?: string; key?: string | null } = {}): Promise<Exchange> {
  const headers: Record<string, string> = {};
  const key = options.key === undefined ? world.tenant.apiKey : options.key;
  if (key) headers.authorization = `Bearer ${key}`;
  const body = options.body !== undefined ? JSON.stringify(options.body) : options.raw;
  // Prism 5.16 never answers a JSON request whose body does not parse (it waits for the end of a body it has already read):
  // such a body goes as text/plain, which the service reads as JSON all the same.
  if (body !== undefined) headers['content-type'] = parses(body) ? 'application/json' : 'text/plain';
  const response = await fetch(`${prism.url}${path}`, { method, headers, body: method === 'GET' ? undefined : body }).catch((error: Error) => {
    throw new Error(`${method} ${path} ${body ?? ''}: ${error.message}\n${prism.output().slice(-3000)}`);
  });
  const text = await response.text();
  let parsed: any;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  const exchange: Exchange = {
    what: `${method} ${path.slice(0, 160)} ${body === undefined ? '' : body.slice(0, 160)} → ${response.status} ${text.slice(0, 200)}`,
    status: response.status,
    body: parsed,
    error: parsed?.error,
    issues: ((parsed?.issues ?? []) as { message: string }[]).map((issue) => issue.message),
    violations: violationsOf(response.headers),
  };
  exchanges.push(exchange);
  return exchange;
}

const expectStatus = async (exchange: Promise<Exchange>, status: number): Promise<Exchange> => {
  const answered = await exchange;
  expect(answered.status, answered.what).toBe(status);
  return answered;
};

beforeAll(async () => {
  world = await startSandboxedService({ routes: { PIX: 'gateway_b', CARD: 'gateway_a', SUBSCRIPTION: 'gateway_b' } });
  await world.service.admin.apiKeys.setRateLimits({ apiKeyId: world.tenant.apiKeyId, limits: HIGH_LIMITS });
  dir = mkdtempSync(join(tmpdir(), 'prism-'));
  const documentPath = join(dir, 'openapi.json');
  const served = await fetch(`${world.service.url}/v1/openapi.json`);
  writeFileSync(documentPath, await served.text());
  prism = await startPrismProxy(documentPath, world.service.url);
}, 90_000);
afterAll(async () => {
  await prism?.stop();
  await world?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('Prism in front of the service', () => {
  it('finds no answer outside the document, no accepted request against it, and every invalid request refused by it', async () => {
    const started = performance.now();
    const pixBody = { amount: 1990, method: 'pix', externalId: externalId('pix'), customer: CUSTOMER, metadata: { order: { id: 7, lines: ['a'] } } };
    const cardBody = (extra: Record<string, unknown> = {}) => ({ amount: 4990, method: 'CARD', externalId: externalId('card'), customer: CUSTOMER, card: { installments: 3 }, returnUrl: 'https://shop.example/return', ...extra });

    // ---- valid requests on every route ----------------------------------------------
    await expectStatus(send('GET', '/v1/health', { key: null }), 200);
    await expectStatus(send('GET', '/v1/auth/test'), 200);
    const pix = (await expectStatus(send('POST', '/v1/payments', { body: pixBody }), 201)).body;
    await expectStatus(send('POST', '/v1/payments', { body: pixBody }), 201);
    await expectStatus(send('GET', `/v1/payments?externalId=${pixBody.externalId}`), 200);
    await expectStatus(send('GET', `/v1/payments/${pix.id}`), 200);
    await expectStatus(send('POST', `/v1/payments/${pix.id}/sync`), 200);
    const card = cardBody();
    const canceled = (await expectStatus(send('POST', '/v1/payments', { body: card }), 201)).body;
    await expectStatus(send('POST', `/v1/payments/${canceled.id}/cancel`, { raw: '{}' }), 200);
    const paidBody = cardBody({ customer: { ...CUSTOMER, phone: null }, metadata: { note: 'two\nlines' } });
    const paid = (await expectStatus(send('POST', '/v1/payments', { body: paidBody }), 201)).body;
    await world.sandbox.sims.gateway_a.payPayment(paid.gatewayRef);
    const refundRequest = { externalId: externalId('refund'), amount: 100, reason: 'one item returned' };
    const refund = (await expectStatus(send('POST', `/v1/payments/${paid.id}/refunds`, { body: refundRequest }), 201)).body;
    await expectStatus(send('GET', `/v1/refunds?externalId=${refundRequest.externalId}`), 200);
    await expectStatus(send('GET', `/v1/refunds/${refund.id}`), 200);
    const subscriptionBody = { amount: 2990, interval: 'monthly', trialDays: 7, externalId: externalId('sub'), customer: CUSTOMER };
    const sub = (await expectStatus(send('POST', '/v1/subscriptions', { body: subscriptionBody }), 201)).body;
    await expectStatus(send('GET', `/v1/subscriptions?externalId=${subscriptionBody.externalId}`), 200);
    await expectStatus(send('GET', `/v1/subscriptions/${sub.id}`), 200);
    await expectStatus(send('POST', `/v1/subscriptions/${sub.id}/sync`), 200);
    await expectStatus(send('POST', `/v1/subscriptions/${sub.id}/cancel`, { body: { atPeriodEnd: false } }), 200);
    const events = await expectStatus(send('GET', '/v1/events?limit=2'), 200);
    expect(events.violations).toEqual([]);
    await expectStatus(send('GET', '/v1/events?limit=007&type=payment.created'), 200);
    await expectStatus(send('GET', '/v1/events?limit=100'), 200);

    // ---- invalid requests the directed way ----------------------------------------------
    const invalid: [string, string, { body?: unknown; raw?: string }?][] = [
      ['GET', '/v1/payments'],
      ['GET', '/v1/payments?externalId='],
      ['GET', '/v1/refunds?externalId='],
      ['GET', '/v1/subscriptions'],
      ['GET', '/v1/payments?externalId=%00'],
      ['GET', `/v1/payments?externalId=${'x'.repeat(256)}`],
      ['GET', '/v1/payments/not-an-id'],
      ['GET', '/v1/payments/pay_x'],
      ['GET', `/v1/payments/PAY_${'0'.repeat(24)}`],
      ['GET', '/v1/refunds/not-an-id'],
      ['POST', '/v1/payments/pay_x/cancel'],
      ['POST', '/v1/payments/pay_x/sync'],
      ['POST', '/v1/payments/pay_x/refunds', { body: { externalId: externalId('refund') } }],
      ['GET', '/v1/events?limit=0'],
      ['GET', '/v1/events?limit=101'],
      ['GET', '/v1/events?limit=999'],
      ['GET', '/v1/events?limit=1e2'],
      ['GET', '/v1/events?limit=-1'],
      ['GET', '/v1/events?after=evt_x'],
      ['GET', '/v1/events?type=nope'],
      ['POST', '/v1/payments', { body: { ...pixBody, externalId: externalId('x'), amount: 0 } }],
      ['POST', '/v1/payments', { body: { ...pixBody, externalId: externalId('x'), amount: '100' } }],
      ['POST', '/v1/payments', { body: { ...pixBody, externalId: '' } }],
      ['POST', '/v1/payments', { body: { ...pixBody, externalId: 'a\u0000b' } }],
      ['POST', '/v1/payments', { body: { ...pixBody, externalId: externalId('x'), currency: 'USD' } }],
      ['POST', '/v1/payments', { body: { ...pixBody, externalId: externalId('x'), method: 'boleto' } }],
      ['POST', '/v1/payments', { body: { ...pixBody, externalId: externalId('x'), card: { installments: 2 } } }],
      ['POST', '/v1/payments', { body: { ...cardBody(), card: { installments: 25 } } }],
      ['POST', '/v1/payments', { body: { ...cardBody(), card: { instalments: 2 } } }],
      ['POST', '/v1/payments', { body: { ...pixBody, externalId: externalId('x'), customer: { ...CUSTOMER, document: '123' } } }],
      ['POST', '/v1/payments', { body: { ...pixBody, externalId: externalId('x'), customer: { ...CUSTOMER, document: '123456789012' } } }],
      ['POST', '/v1/payments', { body: { ...pixBody, externalId: externalId('x'), customer: { ...CUSTOMER, phone: '12345' } } }],
      ['POST', '/v1/payments', { body: { ...pixBody, externalId: externalId('x'), customer: { ...CUSTOMER, name: '' } } }],
      ['POST', '/v1/payments', { body: { ...pixBody, externalId: externalId('x'), customer: { ...CUSTOMER, name: 'Ann\u001b[31m' } } }],
      ['POST', '/v1/payments', { body: { ...pixBody, externalId: externalId('x'), customer: { ...CUSTOMER, email: 'not-an-email' } } }],
      ['POST', '/v1/payments', { body: { ...pixBody, externalId: externalId('x'), metadata: [1] } }],
      ['POST', '/v1/payments', { body: { ...pixBody, externalId: externalId('x'), metadata: { note: 'a\u0000b' } } }],
      ['POST', '/v1/payments', { body: { ...pixBody, externalId: externalId('x'), metadata: { list: ['\u001b[31m'] } } }],
      ['POST', '/v1/payments', { body: { ...pixBody, externalId: externalId('x'), metadata: { 'k\u0007': 1 } } }],
      ['POST', '/v1/payments', { body: { ...pixBody, externalId: externalId('x'), metadata: { a: { b: { c: { d: { e: 1 } } } } } } }],
      ['POST', '/v1/payments', { body: { ...pixBody, externalId: externalId('x'), metadata: { a: [[[[1]]]] } } }],
      ['POST', '/v1/payments', { body: { ...cardBody(), returnUrl: 'ftp://shop.example/' } }],
      ['POST', '/v1/payments', { body: { ...cardBody(), returnUrl: 'https://user:pw@shop.example/' } }],
      ['POST', '/v1/payments', { body: { ...pixBody, externalId: externalId('x'), extra: 1 } }],
      ['POST', '/v1/payments', { raw: '{"amount":' }],
      ['POST', '/v1/payments', { raw: '[]' }],
      ['POST', '/v1/subscriptions', { body: { ...subscriptionBody, externalId: externalId('x'), interval: 'weekly' } }],
      ['POST', '/v1/subscriptions', { body: { ...subscriptionBody, externalId: externalId('x'), trialDays: 400 } }],
      ['POST', '/v1/subscriptions', { body: { ...subscriptionBody, externalId: externalId('x'), gateway: { gateway_c: { planId: '' } } } }],
      ['POST', `/v1/subscriptions/${sub.id}/cancel`, { body: { atPeriodEnd: 'false' } }],
      ['POST', `/v1/subscriptions/${sub.id}/cancel`, { body: { now: true } }],
      ['POST', `/v1/subscriptions/${sub.id}/sync`, { body: { x: 1 } }],
      ['POST', `/v1/payments/${pix.id}/sync`, { body: { x: 1 } }],
      ['POST', `/v1/payments/${pix.id}/cancel`, { raw: '[1]' }],
      ['POST', `/v1/payments/${paid.id}/refunds`, { body: { externalId: externalId('refund'), amount: 0 } }],
      ['POST', `/v1/payments/${paid.id}/refunds`, { body: { externalId: externalId('refund'), reason: '' } }],
      ['POST', `/v1/payments/${paid.id}/refunds`, { body: { externalId: externalId('refund'), why: 'x' } }],
      ['POST', `/v1/payments/${paid.id}/refunds`, { body: { amount: 1 } }],
    ];
    for (const [method, path, options] of invalid) {
      const answered = await send(method, path, options);
      expect(answered.status, answered.what).toBe(400);
    }

    // ---- the seeded requests of the conformance test --------------------------------------
    const ids = { payments: [pix.id, canceled.id, paid.id], subscriptions: [sub.id], refunds: [refund.id] };
    // Prism 5.16 dies on a path whose percent-encoding does not decode (its path matcher's decodeURIComponent throws):
    // such paths (`%ZZ`, the bytes of a lone surrogate) are left out here; the conformance and hostile tests send them.
    const requests = fc
      .sample(fuzzedRequests(ids, [pixBody.externalId, subscriptionBody.externalId, refundRequest.externalId], externalId), { seed: SEED, numRuns: RUNS })
      .filter((request) => decodes(request.path.split('?')[0]!));
    for (let i = 0; i < requests.length; i += 4) {
      await Promise.all(
        requests.slice(i, i + 4).map((request) => send(request.method, request.path, { raw: request.body, key: request.key === 'main' ? undefined : request.key === 'none' ? null : 'sk_test_garbage' })),
      );
    }

    // ---- what Prism found -----------------------------------------------------------------
    const onRequest = (exchange: Exchange) => exchange.violations.filter((violation) => violation.location[0] === 'request');
    const onResponse = (exchange: Exchange) => exchange.violations.filter((violation) => violation.location[0] === 'response');
    const told = (exchange: Exchange, violations: Violation[]) => `${exchange.what} :: ${violations.map((v) => `${v.location.join('.')} ${v.message}`).join('; ')}`;
    const responseViolations = exchanges.filter((exchange) => onResponse(exchange).length > 0).map((exchange) => told(exchange, onResponse(exchange)));
    const stricterThanService = exchanges.filter((exchange) => exchange.status < 300 && onRequest(exchange).length > 0).map((exchange) => told(exchange, onRequest(exchange)));
    const refusedForItsForm = exchanges.filter((exchange) => exchange.status === 400 && VALIDATION_CODES.has(exchange.error ?? ''));
    const beyond = (exchange: Exchange) => exchange.issues.length > 0 && exchange.issues.every((message) => BEYOND_THE_DOCUMENT.some(([pattern]) => pattern.test(message)));
    const letThrough = refusedForItsForm.filter((exchange) => !beyond(exchange) && onRequest(exchange).length === 0).map((exchange) => exchange.what);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `prism: ${exchanges.length} requests, ${refusedForItsForm.length} refused for their form (${refusedForItsForm.filter(beyond).length} for reasons beyond the document), ` +
        `${letThrough.length} let through by the document, ${stricterThanService.length} accepted by the service but refused by the document, ${responseViolations.length} answers with violations, ${seconds} s`,
    );
    expect(responseViolations.slice(0, 20)).toEqual([]);
    expect(stricterThanService.slice(0, 20)).toEqual([]);
    expect(letThrough.slice(0, 40)).toEqual([]);
  }, 120_000);
});
