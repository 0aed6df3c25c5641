/**
 * Decision 5, whole: every 400 (what the routed gateway requires included)
 * comes before any 402, billing before routing's 409, and the gateway's 502
 * last, on both creates.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, validPayment } from '../support/http';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';

let world: SandboxedService;
beforeAll(async () => {
  world = await startSandboxedService({ routes: { CARD: 'gateway_a', SUBSCRIPTION: 'gateway_c' } });
  await world.service.admin.organizations.setBilling({ organizationId: world.tenant.organizationId, billingStatus: 'past_due' });
});
afterAll(() => world?.stop());

const post = (path: string, body: unknown) => call(world.service.url, 'POST', path, { key: world.tenant.apiKey, body });
const subscription = (overrides: Record<string, unknown> = {}) => ({
  amount: 2990,
  interval: 'monthly',
  externalId: `sub-${Math.random().toString(36).slice(2)}`,
  customer: { name: 'Ana Souza', email: 'ana@example.com', document: '529.982.247-25', phone: '11987654321' },
  gateway: { gateway_c: { planId: 'plan_monthly_basic' } },
  ...overrides,
});

describe('with billing past due', () => {
  it('installments above the routed gateway maximum are 400 at card.installments, not 402', async () => {
    const reply = await post('/v1/payments', validPayment({ method: 'card', card: { installments: 13 } }));
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: 'invalid_input', issues: [{ path: ['card', 'installments'] }] });
  });

  it('a valid payment is 402, and so is one whose method has no routing rule (billing before routing)', async () => {
    expect((await post('/v1/payments', validPayment({ method: 'card' }))).body.error).toBe('billing_past_due');
    expect((await post('/v1/payments', validPayment({ method: 'pix' }))).body.error).toBe('billing_past_due');
  });

  it('a subscription routed to gateway_c without a phone, without a plan, or off its plan is 400, not 402', async () => {
    const { phone: _phone, ...withoutPhone } = subscription().customer;
    const cases: [Record<string, unknown>, (string | number)[]][] = [
      [{ customer: withoutPhone }, ['customer', 'phone']],
      [{ gateway: undefined }, ['gateway', 'gateway_c', 'planId']],
      [{ amount: 5000 }, ['amount']],
    ];
    for (const [overrides, path] of cases) {
      const reply = await post('/v1/subscriptions', subscription(overrides));
      expect(reply.status, JSON.stringify(reply.body)).toBe(400);
      expect(reply.body.issues.map((issue: { path: unknown }) => issue.path)).toContainEqual(path);
    }
  });

  it('a plan the gateway fails to answer for is the gateway error, after billing: 402', async () => {
    world.sandbox.sims.gateway_c.injectFault('getPlan', { kind: 'server_error' });
    const reply = await post('/v1/subscriptions', subscription());
    world.sandbox.sims.gateway_c.clearFaults();
    expect(reply.status).toBe(402);
    expect(reply.body.error).toBe('billing_past_due');
  });
});
