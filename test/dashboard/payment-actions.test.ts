/**
 * The dashboard's actions on a payment or subscription, over HTTP as a
 * logged-in team member: cancel and sync run the very /v1 use cases, with
 * their rules (a Pix cannot be canceled; a paid payment is not canceled; at
 * period end only where the gateway supports it) and their messages; the
 * `actions` queries say beforehand what would be refused and why. A viewer
 * reads but cannot act.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, validPayment } from '../support/http';
import { member, type Browser, type Reply } from '../support/dashboard-sessions';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';

let world: SandboxedService;
let developer: Browser;
let viewer: Browser;

beforeAll(async () => {
  world = await startSandboxedService({ simulatorsInService: true, routes: { PIX: 'gateway_a', CARD: 'gateway_a', SUBSCRIPTION: 'gateway_b' } });
  [developer, viewer] = await Promise.all([member(world.service, world.tenant.organizationId, 'developer'), member(world.service, world.tenant.organizationId, 'viewer')]);
}, 60_000);

afterAll(async () => {
  await world?.stop();
});

const data = (reply: Reply) => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.result.data;
};
const refusal = (reply: Reply) => ({ status: reply.status, error: reply.body?.error, message: reply.body?.message });

async function createPayment(body: Record<string, unknown>) {
  const reply = await call(world.service.url, 'POST', '/v1/payments', { key: world.tenant.apiKey, body: validPayment(body) });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body as { id: string; gatewayRef: string; status: string };
}

describe('payment actions from the dashboard', () => {
  it('a developer cancels an unpaid card payment; the payment.canceled event follows; a second cancel says it is final', async () => {
    const payment = await createPayment({ method: 'card', card: { installments: 1 } });
    expect(data(await developer.call('payments.actions', { paymentId: payment.id }))).toEqual({ cancel: { allowed: true, reason: null }, sync: { allowed: true, reason: null } });
    // A viewer sees the same options but is refused the action itself.
    expect(refusal(await viewer.call('payments.cancel', { paymentId: payment.id }))).toMatchObject({ status: 403, error: 'forbidden' });

    expect(data(await developer.call('payments.cancel', { paymentId: payment.id }))).toMatchObject({ id: payment.id, status: 'canceled' });
    const detail = data(await viewer.call('payments.get', { paymentId: payment.id }));
    expect(detail.events.map((event: { type: string }) => event.type)).toContain('payment.canceled');
    expect(data(await developer.call('payments.actions', { paymentId: payment.id })).cancel).toEqual({ allowed: false, reason: 'The resource is already in a final state.' });
    expect(refusal(await developer.call('payments.cancel', { paymentId: payment.id }))).toEqual({ status: 409, error: 'conflict', message: 'The resource is already in a final state.' });
  });

  it('a Pix cannot be canceled: the options say why beforehand, the refusal says the same', async () => {
    const pix = await createPayment({ method: 'pix' });
    expect(data(await developer.call('payments.actions', { paymentId: pix.id })).cancel).toEqual({ allowed: false, reason: 'Pix payments cannot be canceled; they expire by themselves.' });
    expect(refusal(await developer.call('payments.cancel', { paymentId: pix.id }))).toEqual({
      status: 400,
      error: 'invalid_input',
      message: 'Pix payments cannot be canceled; they expire by themselves.',
    });
  });

  it('sync reads the gateway now: a Pix paid at the gateway whose notification was lost becomes paid', async () => {
    const pix = await createPayment({ method: 'pix' });
    const sim = world.sandbox.sims.gateway_a;
    sim.setWebhooksEnabled(false);
    try {
      await sim.payPayment(pix.gatewayRef);
    } finally {
      sim.setWebhooksEnabled(true);
    }
    expect(data(await viewer.call('payments.get', { paymentId: pix.id })).payment.status).toBe('pending');
    expect(refusal(await viewer.call('payments.sync', { paymentId: pix.id }))).toMatchObject({ status: 403, error: 'forbidden' });
    expect(data(await developer.call('payments.sync', { paymentId: pix.id }))).toMatchObject({ id: pix.id, status: 'paid' });
    expect(data(await developer.call('payments.actions', { paymentId: pix.id })).cancel.reason).toBe('Pix payments cannot be canceled; they expire by themselves.');
  });

  it('a gateway that cannot cancel is named before and after', async () => {
    await world.sandbox.route('CARD', 'gateway_b');
    try {
      const card = await createPayment({ method: 'card', card: { installments: 1 } });
      expect(data(await developer.call('payments.actions', { paymentId: card.id })).cancel).toEqual({
        allowed: false,
        reason: 'gateway_b cannot cancel a payment; it ends by itself at the gateway (expired or failed).',
      });
      expect(refusal(await developer.call('payments.cancel', { paymentId: card.id }))).toMatchObject({ status: 412, error: 'unavailable' });
    } finally {
      await world.sandbox.route('CARD', 'gateway_a');
    }
  });
});

describe('subscription actions from the dashboard', () => {
  it('cancel at period end where the gateway supports it, then cancel now', async () => {
    const created = await call(world.service.url, 'POST', '/v1/subscriptions', {
      key: world.tenant.apiKey,
      body: { amount: 4990, interval: 'monthly', externalId: `sub-${Date.now()}`, customer: { name: 'Maria', email: 'maria@example.com', document: '12345678909' } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    expect(data(await developer.call('subscriptions.actions', { subscriptionId: id }))).toEqual({
      cancelNow: { allowed: true, reason: null },
      cancelAtPeriodEnd: { allowed: true, reason: null },
      sync: { allowed: true, reason: null },
    });
    expect(refusal(await viewer.call('subscriptions.cancel', { subscriptionId: id, atPeriodEnd: true }))).toMatchObject({ status: 403, error: 'forbidden' });

    const atPeriodEnd = data(await developer.call('subscriptions.cancel', { subscriptionId: id, atPeriodEnd: true }));
    expect(atPeriodEnd).toMatchObject({ id, status: 'active', cancelAtPeriodEnd: true });
    expect(data(await developer.call('subscriptions.actions', { subscriptionId: id })).cancelAtPeriodEnd).toEqual({ allowed: false, reason: 'It already ends at the end of its period.' });
    expect(data(await developer.call('subscriptions.sync', { subscriptionId: id }))).toMatchObject({ id, cancelAtPeriodEnd: true });

    expect(data(await developer.call('subscriptions.cancel', { subscriptionId: id }))).toMatchObject({ id, status: 'canceled', nextBillingAt: null });
    expect(data(await developer.call('subscriptions.actions', { subscriptionId: id }))).toMatchObject({ cancelNow: { allowed: false, reason: 'The subscription is already canceled.' } });
    expect(refusal(await developer.call('subscriptions.cancel', { subscriptionId: id }))).toMatchObject({ status: 409, error: 'conflict' });
  });

  it('a gateway that only cancels immediately is named, and its refusal is the API\'s', async () => {
    await world.sandbox.route('SUBSCRIPTION', 'gateway_a');
    try {
      const created = await call(world.service.url, 'POST', '/v1/subscriptions', {
        key: world.tenant.apiKey,
        body: { amount: 4990, interval: 'monthly', externalId: `sub-a-${Date.now()}`, customer: { name: 'Maria', email: 'maria@example.com', document: '12345678909' } },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const id = created.body.id as string;
      expect(data(await developer.call('subscriptions.actions', { subscriptionId: id })).cancelAtPeriodEnd).toEqual({ allowed: false, reason: 'gateway_a only cancels immediately.' });
      const refused = refusal(await developer.call('subscriptions.cancel', { subscriptionId: id, atPeriodEnd: true }));
      expect(refused).toMatchObject({ status: 400, error: 'invalid_input' });
      expect(refused.message).toContain('gateway_a only cancels immediately');
    } finally {
      await world.sandbox.route('SUBSCRIPTION', 'gateway_b');
    }
  });
});
