/**
 * The contract is exactly what the service does, proved on a real service
 * with the sandbox simulators: the served OpenAPI document (GET
 * /v1/openapi.json) is fetched, every route is driven through every status
 * and error code it documents (set-ups for each: keys, billing states,
 * routing, simulator faults, a low rate limit, a failing dependency), then
 * through a seeded fuzzed set of requests, and EVERY answer is checked
 * against the document:
 * - its status is documented for the route;
 * - its body validates against that status's schema (ajv, JSON Schema
 *   2020-12, formats on, unknown keywords refused except OpenAPI's `example`);
 * - an error's code is one the route documents for that status;
 * - the headers documented for that answer are present and fit their schema.
 * Then coverage: each (route, status, code) the document lists was answered,
 * or is listed in UNREACHABLE with the reason, which the route's description
 * also states. CONFORMANCE_SEED replays another fuzz run, CONFORMANCE_RUNS
 * sets its size.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BILLING_STATUSES } from '../../server/contract/enums';
import { Payment } from '../../server/domain/payments/payment';
import { Subscription } from '../../server/domain/subscriptions/subscription';
import { simulatorCredentials } from '../support/gateways';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { createTenant, type TestTenant } from '../support/tenant';
import { CUSTOMER as customer, fuzzedRequests } from '../support/contract-requests';

const SEED = Number(process.env.CONFORMANCE_SEED ?? 20261125);
const FUZZ_RUNS = Number(process.env.CONFORMANCE_RUNS ?? 1000);
/** The service's own limits, per key and minute: low, so a key without overrides meets 429 on every route. */
const LOW_LIMIT = 2;
const HIGH_LIMITS = { payments_create: 1_000_000, payments_sync: 1_000_000, payments_cancel: 1_000_000, default: 1_000_000 };
const refundBody = (overrides: Record<string, unknown> = {}) => ({ externalId: `conf-refund-${Math.random().toString(36).slice(2)}`, ...overrides });

/**
 * Documented codes no request can make the service answer on that route,
 * each with the reason its description gives a reader. Listed by hand on
 * purpose: a code that becomes reachable, or stops being documented, fails
 * the coverage check below until this list is corrected.
 */
const UNREACHABLE: Record<string, { reason: string; description: string }> = {
  'POST /v1/subscriptions 409 method_not_supported': {
    reason: 'subscriptions are card-only and every gateway (gateway_a, gateway_b, gateway_c) takes cards: routing never resolves to a gateway without the method',
    description: 'Never 409 `method_not_supported`',
  },
};

/** Codes the contract (spec section 4) lists for a route that the document leaves out, and says why in the route's description. */
const LEFT_OUT_WITH_REASON: Record<string, string> = {
  'POST /v1/payments/{id}/sync 501 not_implemented': 'Never 501 `not_implemented`',
  'POST /v1/subscriptions 409 action_not_implemented': 'Never 409 `action_not_implemented`',
  'POST /v1/subscriptions/{id}/cancel 409 action_not_implemented': 'Never 409 `action_not_implemented`',
};

interface Answer {
  method: string;
  template: string;
  path: string;
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

let world: SandboxedService;
let url: string;
let document: any;
let ajv: Ajv2020;
const validators = new Map<string, ValidateFunction>();
const mismatches: string[] = [];
const seen = new Set<string>();
let answered = 0;

let main: TestTenant;
/** Same environment as `main`, no per-key limits: the service's low limits apply. */
let limitedKey: string;
/** An environment with no gateway account and no routing rule, then routing set-ups one at a time. */
let bare: TestTenant;
/** An environment that never has any gateway account: resources moved here lost their gateway's credentials. */
let empty: TestTenant;
/** An organization whose platform billing is changed through every state. */
let billing: TestTenant;

let counter = 0;
const externalId = (tag: string) => `conf-${tag}-${++counter}`;
const pixPayment = (overrides: Record<string, unknown> = {}) => ({ amount: 1990, method: 'pix', externalId: externalId('pix'), customer, ...overrides });
const cardPayment = (overrides: Record<string, unknown> = {}) => ({ amount: 4990, method: 'card', externalId: externalId('card'), customer, ...overrides });
const subscriptionBody = (overrides: Record<string, unknown> = {}) => ({ amount: 2990, interval: 'monthly', externalId: externalId('sub'), customer, ...overrides });

function operationOf(method = '', template = ''): any {
  return document.paths[template]?.[method.toLowerCase()];
}

/** The document's component schemas become the `$defs` of one schema ajv knows as `openapi`. */
const toAjv = (schema: unknown): unknown => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"openapi#/$defs/'));

function validatorFor(method: string, template: string, status: number, schema: unknown): ValidateFunction {
  const key = `${method} ${template} ${status}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(toAjv(schema) as object);
    validators.set(key, validate);
  }
  return validate;
}

/** Checks one answer against the document; every mismatch is recorded, none stops the run. */
function check(answer: Answer): void {
  answered++;
  const where = `${answer.method} ${answer.path.slice(0, 120)} → ${answer.status}`;
  const problem = (text: string): void => void mismatches.push(`${where}: ${text} (body ${answer.text.slice(0, 200)})`);
  const operation = operationOf(answer.method, answer.template);
  if (!operation) return problem(`${answer.method} ${answer.template} is not documented`);
  const response = operation.responses[String(answer.status)];
  if (!response) return problem(`status ${answer.status} is not documented for ${answer.method} ${answer.template}`);
  const schema = response.content?.['application/json']?.schema;
  if (!schema) return problem('no JSON schema documented');
  if (!(answer.headers.get('content-type') ?? '').startsWith('application/json')) problem(`content-type ${answer.headers.get('content-type')}`);
  const validate = validatorFor(answer.method, answer.template, answer.status, schema);
  if (!validate(answer.body)) problem(`body does not fit the schema: ${JSON.stringify(validate.errors).slice(0, 400)}`);
  let code = '';
  if (answer.status >= 400) {
    code = String(answer.body?.error);
    const documented: string[] = schema.allOf?.[1]?.properties?.error?.enum ?? [];
    if (!documented.includes(code)) problem(`error ${code} is not documented for status ${answer.status} (documented: ${documented.join(', ')})`);
  }
  for (const [name, ref] of Object.entries<any>(response.headers ?? {})) {
    const header = ref.$ref ? document.components.headers[ref.$ref.split('/').pop()] : ref;
    const value = answer.headers.get(name);
    // Documented as absent on a new resource: checked only when sent.
    if (value === null) {
      if (name !== 'Idempotent-Replayed') problem(`documented header ${name} is missing`);
      continue;
    }
    const headerSchema = header.schema ?? {};
    if (headerSchema.type === 'integer' && !/^-?\d+$/.test(value)) problem(`header ${name} is not an integer: ${value}`);
    if (headerSchema.enum && !headerSchema.enum.includes(value)) problem(`header ${name} is not one of ${headerSchema.enum}: ${value}`);
  }
  seen.add(`${answer.method} ${answer.template} ${answer.status}${code ? ` ${code}` : ''}`);
}

interface Send {
  key?: string | null;
  body?: unknown;
  raw?: string;
}

/** One request to a route of the document (`template`), answered and checked. */
async function send(method: string, template: string, path: string, options: Send = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  const key = options.key === undefined ? main.apiKey : options.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  let body = options.raw;
  if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${url}${path}`, { method, headers, body: method === 'GET' ? undefined : body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  const answer: Answer = { method, template, path, status: response.status, headers: response.headers as unknown as Headers, text, body: parsed };
  check(answer);
  return answer;
}

/** A step of a set-up must give what it is there for, or the coverage it stands for is not real. */
function expectCode(answer: Answer, status: number, code?: string): Answer {
  expect({ status: answer.status, error: answer.body?.error }, `${answer.method} ${answer.path}: ${answer.text.slice(0, 300)}`).toEqual({ status, error: code });
  return answer;
}

const createPayment = (body: unknown, key?: string | null) => send('POST', '/v1/payments', '/v1/payments', { body, key });
const createSubscription = (body: unknown, key?: string | null) => send('POST', '/v1/subscriptions', '/v1/subscriptions', { body, key });
const onPayment = (action: 'cancel' | 'sync', id: string, options: Send = {}) => send('POST', `/v1/payments/{id}/${action}`, `/v1/payments/${id}/${action}`, options);
const refund = (paymentId: string, options: Send = {}) => send('POST', '/v1/payments/{id}/refunds', `/v1/payments/${paymentId}/refunds`, options);
const onSubscription = (action: 'cancel' | 'sync', id: string, options: Send = {}) => send('POST', `/v1/subscriptions/{id}/${action}`, `/v1/subscriptions/${id}/${action}`, options);

/** Every documented route with a request that reaches it (ids of resources of `main`). */
function everyRoute(ids: { payment: string; subscription: string; refund: string }): [method: string, template: string, path: string, body?: unknown][] {
  return [
    ['GET', '/v1/auth/test', '/v1/auth/test'],
    ['POST', '/v1/payments', '/v1/payments', pixPayment()],
    ['GET', '/v1/payments', '/v1/payments?externalId=anything'],
    ['GET', '/v1/payments/{id}', `/v1/payments/${ids.payment}`],
    ['POST', '/v1/payments/{id}/cancel', `/v1/payments/${ids.payment}/cancel`],
    ['POST', '/v1/payments/{id}/sync', `/v1/payments/${ids.payment}/sync`],
    ['POST', '/v1/subscriptions', '/v1/subscriptions', subscriptionBody()],
    ['GET', '/v1/subscriptions', '/v1/subscriptions?externalId=anything'],
    ['GET', '/v1/subscriptions/{id}', `/v1/subscriptions/${ids.subscription}`],
    ['POST', '/v1/subscriptions/{id}/cancel', `/v1/subscriptions/${ids.subscription}/cancel`],
    ['POST', '/v1/subscriptions/{id}/sync', `/v1/subscriptions/${ids.subscription}/sync`],
    ['GET', '/v1/events', '/v1/events'],
    ['POST', '/v1/payments/{id}/refunds', `/v1/payments/${ids.payment}/refunds`, refundBody({ amount: 1 })],
    ['GET', '/v1/refunds', '/v1/refunds?externalId=anything'],
    ['GET', '/v1/refunds/{id}', `/v1/refunds/${ids.refund}`],
  ];
}

beforeAll(async () => {
  world = await startSandboxedService({
    routes: { PIX: 'gateway_b', CARD: 'gateway_a', SUBSCRIPTION: 'gateway_b' },
    env: {
      RATE_LIMIT_PAYMENTS_CREATE: String(LOW_LIMIT),
      RATE_LIMIT_PAYMENTS_SYNC: String(LOW_LIMIT),
      RATE_LIMIT_PAYMENTS_CANCEL: String(LOW_LIMIT),
      RATE_LIMIT_DEFAULT: String(LOW_LIMIT),
      GATEWAY_TIMEOUT_MS: '2000',
    },
  });
  url = world.service.url;
  main = world.tenant;
  const admin = world.service.admin;
  await admin.apiKeys.setRateLimits({ apiKeyId: main.apiKeyId, limits: HIGH_LIMITS });
  limitedKey = (await admin.apiKeys.create({ environmentId: main.environmentId })).secret;
  [bare, empty, billing] = [await createTenant(world.service), await createTenant(world.service), await createTenant(world.service)];
  for (const tenant of [bare, empty, billing]) await admin.apiKeys.setRateLimits({ apiKeyId: tenant.apiKeyId, limits: HIGH_LIMITS });

  const served = await fetch(`${url}/v1/openapi.json`);
  expect(served.status).toBe(200);
  document = await served.json();
  // Strict: a keyword ajv does not know is an error, so a typo in the document cannot silently validate nothing.
  ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true, validateFormats: true });
  ajv.addKeyword('example');
  (addFormats as unknown as (instance: Ajv2020) => void)(ajv);
  ajv.addSchema({ $id: 'openapi', $defs: toAjv(document.components.schemas) }, 'openapi');
}, 90_000);
afterAll(() => world?.stop());

describe('the served OpenAPI document and the live service', () => {
  it('agree on every answer of every route: documented failures, then a seeded fuzz', async () => {
    const started = performance.now();
    const sims = world.sandbox.sims;
    const em = () => world.service.services.db.fork();

    // ---- platform ----------------------------------------------------------
    await send('GET', '/v1/health', '/v1/health', { key: null });
    await send('GET', '/v1/health', '/v1/health?probe=1');
    expectCode(await send('GET', '/v1/auth/test', '/v1/auth/test'), 200);

    // ---- payments: create, replay, reads --------------------------------------
    const pixBody = pixPayment();
    const pix = expectCode(await createPayment(pixBody), 201).body;
    const replay = expectCode(await createPayment(pixBody), 201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const card = expectCode(await createPayment(cardPayment()), 201).body;
    expectCode(await createPayment(cardPayment({ amount: 0 })), 400, 'invalid_input');
    expectCode(await createPayment({ ...cardPayment(), unknown: 1 }), 400, 'invalid_input');
    expectCode(await send('POST', '/v1/payments', '/v1/payments', { raw: '{"amount":' }), 400, 'invalid_json');
    // What the gateway requires is validation too: gateway_a takes at most 12 installments.
    expectCode(await createPayment(cardPayment({ card: { installments: 18 } })), 400, 'invalid_input');
    sims.gateway_b.injectFault('createPayment', { kind: 'server_error' });
    expectCode(await createPayment(pixPayment()), 502, 'gateway_error');

    expectCode(await send('GET', '/v1/payments', `/v1/payments?externalId=${encodeURIComponent(pixBody.externalId)}`), 200);
    expectCode(await send('GET', '/v1/payments', '/v1/payments'), 400, 'missing_query');
    expectCode(await send('GET', '/v1/payments', '/v1/payments?externalId='), 400, 'missing_query');
    for (const query of ['externalId=%00', `externalId=${'x'.repeat(256)}`, 'externalId=a&externalId=b']) {
      expectCode(await send('GET', '/v1/payments', `/v1/payments?${query}`), 400, 'invalid_input');
    }
    expectCode(await send('GET', '/v1/payments', '/v1/payments?externalId=nobody'), 404, 'not_found');
    expectCode(await send('GET', '/v1/payments/{id}', `/v1/payments/${pix.id}`), 200);
    expectCode(await send('GET', '/v1/payments/{id}', '/v1/payments/pay_000000000000000000000000'), 404, 'not_found');
    expectCode(await send('GET', '/v1/payments/{id}', '/v1/payments/not-an-id'), 400, 'invalid_id');

    // ---- payment cancel and sync ------------------------------------------------
    for (const action of ['cancel', 'sync'] as const) {
      expectCode(await onPayment(action, 'pay_x'), 400, 'invalid_id');
      expectCode(await onPayment(action, 'pay_000000000000000000000000'), 404, 'not_found');
      expectCode(await onPayment(action, card.id, { body: { x: 1 } }), 400, 'invalid_input');
      expectCode(await onPayment(action, card.id, { raw: '{bad' }), 400, 'invalid_json');
      expectCode(await onPayment(action, card.id, { raw: '[1]' }), 400, 'invalid_input');
    }
    expectCode(await onPayment('sync', pix.id), 200);
    expectCode(await onPayment('cancel', pix.id), 400, 'cannot_cancel_pix');
    const paid = expectCode(await createPayment(cardPayment()), 201).body;
    await sims.gateway_a.payPayment(paid.gatewayRef);
    expectCode(await onPayment('cancel', paid.id), 409, 'cannot_cancel_paid');
    expectCode(await onPayment('cancel', card.id, { raw: '' }), 200);
    expectCode(await onPayment('cancel', card.id), 409, 'already_canceled');
    const processing = expectCode(await createPayment(cardPayment()), 201).body;
    await sims.gateway_a.setPaymentStatus(processing.gatewayRef, 'processing');
    expectCode(await onPayment('sync', processing.id), 200);
    expectCode(await onPayment('cancel', processing.id), 409, 'cannot_cancel_status');
    // A create the gateway failed: stored, never registered there.
    sims.gateway_a.injectFault('createPayment', { kind: 'server_error' });
    const unregisteredBody = cardPayment();
    expectCode(await createPayment(unregisteredBody), 502, 'gateway_error');
    const unregistered = expectCode(await send('GET', '/v1/payments', `/v1/payments?externalId=${unregisteredBody.externalId}`), 200).body;
    expectCode(await onPayment('cancel', unregistered.id), 409, 'missing_gateway_ref');
    expectCode(await onPayment('sync', unregistered.id), 409, 'missing_gateway_ref');
    const failing = expectCode(await createPayment(cardPayment()), 201).body;
    sims.gateway_a.injectFault('cancelPayment', { kind: 'server_error' });
    expectCode(await onPayment('cancel', failing.id), 502, 'gateway_error');
    sims.gateway_a.injectFault('getPayment', { kind: 'server_error' });
    expectCode(await onPayment('sync', failing.id), 502, 'gateway_error');
    // gateway_b has no payment cancel.
    await world.sandbox.route('CARD', 'gateway_b');
    const onB = expectCode(await createPayment(cardPayment()), 201).body;
    await world.sandbox.route('CARD', 'gateway_a');
    expectCode(await onPayment('cancel', onB.id), 501, 'not_implemented');
    // A payment whose environment has no account for its gateway (an account removed by hand).
    const orphan = expectCode(await createPayment(cardPayment()), 201).body;
    await em().nativeUpdate(Payment, { id: orphan.id }, { environment: empty.environmentId });
    expectCode(await onPayment('cancel', orphan.id, { key: empty.apiKey }), 409, 'provider_not_configured');
    expectCode(await onPayment('sync', orphan.id, { key: empty.apiKey }), 409, 'provider_not_configured');

    // ---- refunds ------------------------------------------------------------------
    expectCode(await refund('pay_x', { body: refundBody() }), 400, 'invalid_id');
    expectCode(await refund('pay_000000000000000000000000', { body: refundBody() }), 404, 'not_found');
    expectCode(await refund(paid.id, { raw: '{bad' }), 400, 'invalid_json');
    expectCode(await refund(paid.id, { body: refundBody({ amount: 0 }) }), 400, 'invalid_input');
    expectCode(await refund(paid.id, { body: refundBody({ amount: '100' }) }), 400, 'invalid_input');
    expectCode(await refund(paid.id, { body: { ...refundBody(), x: 1 } }), 400, 'invalid_input');
    expectCode(await refund(paid.id, { body: refundBody({ amount: paid.amount + 1 }) }), 400, 'invalid_input');
    expectCode(await refund(card.id, { body: refundBody() }), 409, 'cannot_refund_status');
    expectCode(await refund(orphan.id, { key: empty.apiKey, body: refundBody() }), 409, 'provider_not_configured');
    const refundedOnce = refundBody({ amount: 100, reason: 'one item returned' });
    const partial = expectCode(await refund(paid.id, { body: refundedOnce }), 201).body;
    expect((await refund(paid.id, { body: refundedOnce })).headers.get('idempotent-replayed')).toBe('true');
    sims.gateway_a.injectFault('createRefund', { kind: 'server_error' });
    expectCode(await refund(paid.id, { body: refundBody({ amount: 100 }) }), 502, 'gateway_error');
    expectCode(await send('GET', '/v1/refunds/{id}', `/v1/refunds/${partial.id}`), 200);
    expectCode(await send('GET', '/v1/refunds/{id}', '/v1/refunds/not-an-id'), 400, 'invalid_id');
    expectCode(await send('GET', '/v1/refunds/{id}', '/v1/refunds/ref_000000000000000000000000'), 404, 'not_found');
    expectCode(await send('GET', '/v1/refunds', `/v1/refunds?externalId=${encodeURIComponent(refundedOnce.externalId)}`), 200);
    expectCode(await send('GET', '/v1/refunds', '/v1/refunds'), 400, 'missing_query');
    for (const query of ['externalId=%00', `externalId=${'x'.repeat(256)}`, 'externalId=a&externalId=b']) {
      expectCode(await send('GET', '/v1/refunds', `/v1/refunds?${query}`), 400, 'invalid_input');
    }
    expectCode(await send('GET', '/v1/refunds', '/v1/refunds?externalId=nobody'), 404, 'not_found');
    // gateway_c refunds whole payments only: a part is 501.
    await world.sandbox.route('CARD', 'gateway_c');
    const onC = expectCode(await createPayment(cardPayment()), 201).body;
    await world.sandbox.route('CARD', 'gateway_a');
    await sims.gateway_c.payPayment(onC.gatewayRef);
    expectCode(await refund(onC.id, { body: refundBody({ amount: 1 }) }), 501, 'not_implemented');
    // An externalId belongs to the payment it refunded (decision 27).
    expectCode(await refund(onC.id, { body: refundedOnce }), 409, 'external_id_conflict');

    // ---- subscriptions -----------------------------------------------------------
    const subBody = subscriptionBody();
    const sub = expectCode(await createSubscription(subBody), 201).body;
    expect((await createSubscription(subBody)).headers.get('idempotent-replayed')).toBe('true');
    expectCode(await createSubscription({ ...subscriptionBody(), interval: 'weekly' }), 400, 'invalid_input');
    expectCode(await send('POST', '/v1/subscriptions', '/v1/subscriptions', { raw: 'nope' }), 400, 'invalid_json');
    sims.gateway_b.injectFault('createSubscription', { kind: 'server_error' });
    const unregisteredSubBody = subscriptionBody();
    expectCode(await createSubscription(unregisteredSubBody), 502, 'gateway_error');
    const unregisteredSub = expectCode(await send('GET', '/v1/subscriptions', `/v1/subscriptions?externalId=${unregisteredSubBody.externalId}`), 200).body;
    expectCode(await send('GET', '/v1/subscriptions', '/v1/subscriptions'), 400, 'missing_query');
    for (const query of ['externalId=%00', `externalId=${'x'.repeat(256)}`, 'externalId=a&externalId=b']) {
      expectCode(await send('GET', '/v1/subscriptions', `/v1/subscriptions?${query}`), 400, 'invalid_input');
    }
    expectCode(await send('GET', '/v1/subscriptions', '/v1/subscriptions?externalId=nobody'), 404, 'not_found');
    expectCode(await send('GET', '/v1/subscriptions/{id}', `/v1/subscriptions/${sub.id}`), 200);
    expectCode(await send('GET', '/v1/subscriptions/{id}', '/v1/subscriptions/not-an-id'), 404, 'not_found');
    for (const action of ['cancel', 'sync'] as const) {
      expectCode(await onSubscription(action, 'sub_000000000000000000000000'), 404, 'not_found');
      expectCode(await onSubscription(action, sub.id, { body: { x: 1 } }), 400, 'invalid_input');
      expectCode(await onSubscription(action, sub.id, { raw: '{bad' }), 400, 'invalid_json');
      expectCode(await onSubscription(action, unregisteredSub.id), 409, 'missing_gateway_ref');
    }
    expectCode(await onSubscription('sync', sub.id), 200);
    sims.gateway_b.injectFault('getSubscription', { kind: 'server_error' });
    expectCode(await onSubscription('sync', sub.id), 502, 'gateway_error');
    sims.gateway_b.injectFault('cancelSubscription', { kind: 'server_error' });
    expectCode(await onSubscription('cancel', sub.id), 502, 'gateway_error');
    expectCode(await onSubscription('cancel', sub.id, { body: { atPeriodEnd: 'false' } }), 400, 'invalid_input');
    expectCode(await onSubscription('cancel', sub.id, { body: { atPeriodEnd: false } }), 200);
    expectCode(await onSubscription('cancel', sub.id), 409, 'already_canceled');
    // atPeriodEnd on a gateway that cannot: gateway_a.
    await world.sandbox.route('SUBSCRIPTION', 'gateway_a');
    const onA = expectCode(await createSubscription(subscriptionBody()), 201).body;
    await world.sandbox.route('SUBSCRIPTION', 'gateway_b');
    expectCode(await onSubscription('cancel', onA.id, { body: { atPeriodEnd: true } }), 400, 'invalid_input');
    const orphanSub = expectCode(await createSubscription(subscriptionBody()), 201).body;
    await em().nativeUpdate(Subscription, { id: orphanSub.id }, { environment: empty.environmentId });
    expectCode(await onSubscription('cancel', orphanSub.id, { key: empty.apiKey }), 409, 'provider_not_configured');
    expectCode(await onSubscription('sync', orphanSub.id, { key: empty.apiKey }), 409, 'provider_not_configured');
    // gateway_c: the plan read first (its failure is the gateway's), then the plan's rules.
    await world.sandbox.route('SUBSCRIPTION', 'gateway_c');
    sims.gateway_c.injectFault('getPlan', { kind: 'server_error' });
    expectCode(await createSubscription(subscriptionBody({ gateway: { gateway_c: { planId: 'plan_monthly_basic' } } })), 502, 'gateway_error');
    expectCode(await createSubscription(subscriptionBody()), 400, 'invalid_input');
    await world.sandbox.route('SUBSCRIPTION', 'gateway_b');

    // ---- events -------------------------------------------------------------------
    const page = expectCode(await send('GET', '/v1/events', '/v1/events?limit=2'), 200).body;
    expectCode(await send('GET', '/v1/events', `/v1/events?after=${page.nextCursor}&type=payment.created`), 200);
    expectCode(await send('GET', '/v1/events', '/v1/events?limit=0'), 400, 'invalid_input');
    expectCode(await send('GET', '/v1/events', '/v1/events?after=evt_000000000000000000000000'), 400, 'invalid_input');

    // ---- routing (409) in an environment set up one step at a time -------------------
    const admin = world.service.admin;
    expectCode(await createPayment(cardPayment(), bare.apiKey), 409, 'no_routing_rule');
    expectCode(await createSubscription(subscriptionBody(), bare.apiKey), 409, 'no_routing_rule');
    await admin.routing.set({ environmentId: bare.environmentId, method: 'CARD', gateway: 'gateway_a' });
    await admin.routing.set({ environmentId: bare.environmentId, method: 'SUBSCRIPTION', gateway: 'gateway_a' });
    expectCode(await createPayment(cardPayment(), bare.apiKey), 409, 'provider_not_configured');
    expectCode(await createSubscription(subscriptionBody(), bare.apiKey), 409, 'provider_not_configured');
    const credentials = simulatorCredentials();
    await admin.gateways.configure({ environmentId: bare.environmentId, gateway: 'gateway_b', baseUrl: sims.gateway_b.url, credentials: credentials.gateway_b, enabled: false });
    await admin.gateways.configure({ environmentId: bare.environmentId, gateway: 'gateway_c', baseUrl: sims.gateway_c.url, credentials: credentials.gateway_c });
    await admin.routing.set({ environmentId: bare.environmentId, method: 'CARD', gateway: 'gateway_b' });
    await admin.routing.set({ environmentId: bare.environmentId, method: 'SUBSCRIPTION', gateway: 'gateway_b' });
    await admin.routing.set({ environmentId: bare.environmentId, method: 'PIX', gateway: 'gateway_c' });
    expectCode(await createPayment(cardPayment(), bare.apiKey), 409, 'provider_disabled');
    expectCode(await createSubscription(subscriptionBody(), bare.apiKey), 409, 'provider_disabled');
    expectCode(await createPayment(pixPayment(), bare.apiKey), 409, 'method_not_supported');

    // ---- platform billing (402) --------------------------------------------------------
    const codeOf = { inactive: 'billing_inactive', past_due: 'billing_past_due', incomplete: 'billing_incomplete', canceled: 'billing_canceled', expired: 'billing_expired' } as const;
    for (const status of BILLING_STATUSES.filter((s) => s !== 'active')) {
      await admin.organizations.setBilling({ organizationId: billing.organizationId, billingStatus: status });
      expectCode(await createPayment(pixPayment(), billing.apiKey), 402, codeOf[status]);
      expectCode(await createSubscription(subscriptionBody(), billing.apiKey), 402, codeOf[status]);
    }
    await admin.organizations.setBilling({ organizationId: billing.organizationId, billingStatus: 'active', monthlyTxLimit: 0 });
    expectCode(await createPayment(pixPayment(), billing.apiKey), 402, 'billing_monthly_tx_limit_reached');

    // ---- on every authenticated route: 401, 429, 500 ----------------------------------
    const routes = everyRoute({ payment: paid.id, subscription: sub.id, refund: partial.id });
    for (const [method, template, path, body] of routes) {
      expectCode(await send(method, template, path, { key: null, body }), 401, 'unauthorized');
      expectCode(await send(method, template, path, { key: 'sk_test_not_a_key', body }), 401, 'unauthorized');
    }
    for (const [method, template, path, body] of routes) {
      let last: Answer | undefined;
      // Twice the limit and one: a minute window that happens to end in between cannot keep the 429 away.
      for (let attempt = 0; attempt <= 2 * LOW_LIMIT && last?.status !== 429; attempt++) last = await send(method, template, path, { key: limitedKey, body });
      expectCode(last!, 429, 'rate_limit_exceeded');
    }
    // A dependency failing under the route (the rate limiter's store, as when Redis is down) is an internal error.
    const limiter = world.service.services.rateLimiter;
    for (const [method, template, path, body] of routes) {
      const spy = vi.spyOn(limiter, 'consume').mockRejectedValueOnce(new Error('counter store unreachable'));
      expectCode(await send(method, template, path, { body }), 500, 'internal_error');
      spy.mockRestore();
    }
    // The database out of reach while the key is read (decision 24): 503 with Retry-After; pg's own words for a dropped connection.
    const apiKeys = world.service.services.apiKeys;
    for (const [method, template, path, body] of routes) {
      const spy = vi.spyOn(apiKeys, 'lookup').mockRejectedValueOnce(new Error('Connection terminated unexpectedly'));
      const unavailable = expectCode(await send(method, template, path, { body }), 503, 'service_unavailable');
      expect(unavailable.headers.get('retry-after'), `${method} ${path}`).toMatch(/^[1-9]$/);
      spy.mockRestore();
    }
    const directed = answered;

    // ---- a seeded fuzz over every route -------------------------------------------------
    const ids = { payments: [pix.id, card.id, paid.id, processing.id, unregistered.id, onB.id], subscriptions: [sub.id, onA.id, unregisteredSub.id], refunds: [partial.id] };
    const externalIds = [pixBody.externalId, unregisteredBody.externalId, subBody.externalId, refundedOnce.externalId];
    const requests = fc.sample(fuzzedRequests(ids, externalIds, externalId), { seed: SEED, numRuns: FUZZ_RUNS });
    // A few at a time: the service is meant to take concurrent requests, and the run stays short.
    for (let i = 0; i < requests.length; i += 4) {
      await Promise.all(requests.slice(i, i + 4).map((request) => send(request.method, request.template, request.path, { key: request.key === 'main' ? main.apiKey : request.key === 'none' ? null : 'sk_test_garbage', raw: request.body })));
    }

    // ---- coverage -------------------------------------------------------------------------
    const documented: string[] = [];
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          const codes: string[] = response.content?.['application/json']?.schema?.allOf?.[1]?.properties?.error?.enum ?? [''];
          for (const code of codes) documented.push(`${method.toUpperCase()} ${path} ${status}${code ? ` ${code}` : ''}`);
        }
      }
    }
    const notAnswered = documented.filter((entry) => !seen.has(entry) && !UNREACHABLE[entry]);
    const staleUnreachable = Object.keys(UNREACHABLE).filter((entry) => !documented.includes(entry) || seen.has(entry));
    const undocumentedReasons = Object.entries(UNREACHABLE)
      .filter(([entry, { description }]) => {
        const [method, path] = entry.split(' ');
        return !String(operationOf(method, path)?.description ?? '').includes(description);
      })
      .map(([entry]) => entry);
    const leftOut = Object.entries(LEFT_OUT_WITH_REASON)
      .filter(([entry, description]) => {
        const [method, path] = entry.split(' ');
        return documented.includes(entry) || !String(operationOf(method, path)?.description ?? '').includes(description);
      })
      .map(([entry]) => entry);
    const routeCount = documented.reduce((set, entry) => set.add(entry.split(' ').slice(0, 2).join(' ')), new Set<string>()).size;
    const routesAnswered = new Set([...seen].map((entry) => entry.split(' ').slice(0, 2).join(' '))).size;
    const codes = new Set([...seen].map((entry) => entry.split(' ')[3]).filter(Boolean));
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `conformance: ${answered} answers checked (${directed} directed, ${answered - directed} fuzzed, seed ${SEED}) on ${routesAnswered}/${routeCount} routes, ` +
        `${seen.size} (route, status, code) combinations, ${codes.size} error codes, ${Object.keys(UNREACHABLE).length} listed unreachable (${Object.keys(UNREACHABLE).join('; ')}), ${mismatches.length} mismatches, ${seconds} s`,
    );

    const kinds = [...new Set(mismatches.map((m) => m.replace(/\(body .*$/, '').replace(/\/(pay|sub)_[0-9a-z]+/g, '/ID')))];
    expect(kinds.slice(0, 30)).toEqual([]);
    expect(notAnswered, 'documented but never answered (answer it, or list it in UNREACHABLE with the reason)').toEqual([]);
    expect(staleUnreachable, 'listed unreachable but undocumented or answered').toEqual([]);
    expect(undocumentedReasons, 'unreachable codes whose route description does not say so').toEqual([]);
    expect(leftOut, 'codes of the contract the document leaves out without saying why').toEqual([]);
    expect(answered).toBeGreaterThanOrEqual(1000);
    expect(routesAnswered).toBe(routeCount);
  }, 120_000);
});
