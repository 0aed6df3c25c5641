/** The SDK against a real service with the sandbox gateways: typed results and typed errors over real HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isInvalidInputError,
  isPaymentsApiError,
  isRoutingError,
  PaymentsApiError,
  PaymentsClient,
  type CreatePaymentRequest,
  type CreateSubscriptionRequest,
} from '../../sdk/src/index';
import type { Sandbox } from '../support/gateways';
import type { TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';

let world: SandboxedService;
let service: TestService;
let tenant: TestTenant;
let sandbox: Sandbox;
let client: PaymentsClient;

beforeAll(async () => {
  world = await startSandboxedService({ routes: { PIX: 'gateway_a', CARD: 'gateway_a', SUBSCRIPTION: 'gateway_b' } });
  ({ service, tenant, sandbox } = world);
  client = new PaymentsClient({ apiKey: tenant.apiKey, baseUrl: service.url, retryBaseDelayMs: 10 });
});
afterAll(async () => {
  await world?.stop();
});

const customer = { name: 'Maria Silva', email: 'maria@example.com', document: '123.456.789-09' };
const uniqueId = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2)}`;
const pix = (overrides: Partial<CreatePaymentRequest> = {}): CreatePaymentRequest => ({ amount: 2500, method: 'pix', customer, externalId: uniqueId('order'), ...overrides });

/** The error a promise rejects with (fails the test when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

describe('platform', () => {
  it('health needs no key; authTest names the tenant of the key', async () => {
    expect(await client.health()).toEqual({ ok: true, service: 'service-payments' });
    const auth = await client.authTest();
    expect(auth).toEqual({
      ok: true,
      organization: { id: tenant.organizationId },
      project: { id: tenant.projectId },
      environment: { id: tenant.environmentId, kind: 'sandbox' },
      apiKey: { id: tenant.apiKeyId },
    });
    expect(client.environment).toBe('sandbox');
  });
});

describe('payments', () => {
  it('Pix: create → pending with its copy-and-paste code → the customer pays → paid', async () => {
    const created = await client.payments.create(pix());
    expect(created).toMatchObject({ status: 'pending', method: 'pix', gateway: 'gateway_a', amount: 2500, currency: 'BRL', checkoutUrl: null, card: null });
    expect(created.id).toMatch(/^pay_/);
    expect(created.pix?.qrCodeText).toEqual(expect.any(String));
    expect(created.gatewayRef).toEqual(expect.any(String));

    await sandbox.sims.gateway_a.payPayment(created.gatewayRef!);
    expect((await client.payments.get(created.id)).status).toBe('paid');
    expect(await client.payments.getByExternalId(created.externalId!)).toMatchObject({ id: created.id, status: 'paid' });
    expect((await client.payments.sync(created.id)).status).toBe('paid');
  });

  it('creating twice with one externalId returns the same payment', async () => {
    const body = pix();
    const first = await client.payments.create(body);
    const second = await client.payments.create(body);
    expect(second.id).toBe(first.id);
    expect(second).toEqual(first);
  });

  it('card: a checkoutUrl, then cancel → canceled; cancelling again is already_canceled with the status', async () => {
    const created = await client.payments.create(pix({ method: 'card', card: { installments: 2 } }));
    expect(created.checkoutUrl).toMatch(/^https?:\/\//);
    expect((await client.payments.cancel(created.id)).status).toBe('canceled');
    const error = await rejection(client.payments.cancel(created.id));
    expect(isPaymentsApiError(error, 'already_canceled')).toBe(true);
    expect(error).toMatchObject({ status: 409, code: 'already_canceled', resourceStatus: 'canceled' });
  });

  it('invalid_input: a PaymentsApiError with the issues, the request id, and no retry', async () => {
    const error = await rejection(client.payments.create(pix({ amount: -5 })));
    expect(error).toBeInstanceOf(PaymentsApiError);
    expect(isInvalidInputError(error)).toBe(true);
    if (!isInvalidInputError(error)) return;
    expect(error.status).toBe(400);
    expect(error.code).toBe('invalid_input');
    expect(error.issues).toEqual(expect.arrayContaining([{ path: ['amount'], message: expect.any(String) }]));
    expect(error.requestId).toEqual(expect.any(String));
  });

  it('an unknown key is 401 unauthorized', async () => {
    const stranger = new PaymentsClient({ apiKey: `sk_test_${'0'.repeat(32)}`, baseUrl: service.url });
    const error = await rejection(stranger.payments.get('pay_whatever'));
    expect(error).toMatchObject({ status: 401, code: 'unauthorized' });
    expect(isPaymentsApiError(error, 'unauthorized')).toBe(true);
  });

  it('a payment absent from the environment is 404 not_found; a malformed id is 400 invalid_id', async () => {
    expect(await rejection(client.payments.get('pay_doesnotexist000000000000'))).toMatchObject({ status: 404, code: 'not_found' });
    expect(await rejection(client.payments.getByExternalId(uniqueId('never-created')))).toMatchObject({ status: 404, code: 'not_found' });
    expect(await rejection(client.payments.get('nope'))).toMatchObject({ status: 400, code: 'invalid_id' });
  });

  it('a tenant without routing gets 409 no_routing_rule', async () => {
    const bare = await createTenant(service);
    const unrouted = new PaymentsClient({ apiKey: bare.apiKey, baseUrl: service.url });
    const error = await rejection(unrouted.payments.create(pix()));
    expect(error).toMatchObject({ status: 409, code: 'no_routing_rule' });
    expect(isRoutingError(error)).toBe(true);
  });
});

describe('subscriptions', () => {
  const subscription = (overrides: Partial<CreateSubscriptionRequest> = {}): CreateSubscriptionRequest => ({
    amount: 4990,
    interval: 'monthly',
    customer,
    externalId: uniqueId('plan'),
    ...overrides,
  });

  it('create (idempotent) → get → getByExternalId → cancel at period end → cancel now', async () => {
    const body = subscription({ trialDays: 7 });
    const created = await client.subscriptions.create(body);
    expect(created).toMatchObject({ status: 'trialing', method: 'card', gateway: 'gateway_b', interval: 'monthly', trialDays: 7, cancelAtPeriodEnd: false });
    expect((await client.subscriptions.create(body)).id).toBe(created.id);
    expect(await client.subscriptions.get(created.id)).toEqual(created);
    expect((await client.subscriptions.getByExternalId(body.externalId)).id).toBe(created.id);
    // Nothing new at the gateway: sync answers the same subscription.
    expect(await client.subscriptions.sync(created.id)).toMatchObject({ id: created.id, status: 'trialing', gatewayRef: created.gatewayRef, updatedAt: expect.any(String) });

    const atEnd = await client.subscriptions.cancel(created.id, { atPeriodEnd: true });
    expect(atEnd).toMatchObject({ status: 'trialing', cancelAtPeriodEnd: true });
    const now = await client.subscriptions.cancel(created.id);
    expect(now).toMatchObject({ status: 'canceled', canceledAt: expect.any(String) });
    expect(await rejection(client.subscriptions.cancel(created.id))).toMatchObject({ status: 409, code: 'already_canceled', resourceStatus: 'canceled' });
  });
});
