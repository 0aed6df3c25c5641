import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxEvent } from '../../server/db/entities';
import { cli } from '../support/cli';
import { call, validPayment } from '../support/http';
import { simulatorCredentials, startSandbox, type Sandbox } from '../support/gateways';
import { startTestService, type TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';
import { lastEventSecond, withinOneSecond } from '../support/whole-seconds';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

describe('routing conflicts, configured with the operator CLI', () => {
  let tenant: TestTenant;
  beforeAll(async () => {
    tenant = await createTenant(service);
  });
  const create = (body = validPayment()) => call(service.url, 'POST', '/v1/payments', { key: tenant.apiKey, body });

  it('no rule → no_routing_rule; rule without credentials → provider_not_configured; disabled → provider_disabled; wrong method → method_not_supported', async () => {
    expect((await create()).body.error).toBe('no_routing_rule');

    expect((await cli(service, ['route', 'set', 'pix', 'gateway_a', '--env', tenant.environmentId])).code).toBe(0);
    const notConfigured = await create();
    expect(notConfigured.status).toBe(409);
    expect(notConfigured.body).toEqual({ error: 'provider_not_configured', message: expect.any(String), provider: 'gateway_a' });

    const credentials = JSON.stringify(simulatorCredentials().gateway_a);
    const configured = await cli(service, ['gateway', 'set', '--env', tenant.environmentId, '--gateway', 'gateway_a', '--base-url', 'http://127.0.0.1:9', '--credentials', credentials]);
    expect(configured.code).toBe(0);
    expect(configured.json.credentialFields).toEqual(['secretKey', 'webhookSecret']);
    expect(JSON.stringify(configured.json)).not.toContain(JSON.parse(credentials).secretKey);

    await cli(service, ['gateway', 'disable', 'gateway_a', '--env', tenant.environmentId]);
    const disabled = await create();
    expect(disabled.body).toEqual({ error: 'provider_disabled', message: expect.any(String), provider: 'gateway_a' });

    const c = JSON.stringify(simulatorCredentials().gateway_c);
    await cli(service, ['gateway', 'set', '--env', tenant.environmentId, '--gateway', 'gateway_c', '--base-url', 'http://127.0.0.1:9', '--credentials', c]);
    await cli(service, ['route', 'set', 'PIX', 'gateway_c', '--env', tenant.environmentId]);
    const unsupported = await create();
    expect(unsupported.body).toEqual({ error: 'method_not_supported', message: expect.any(String), provider: 'gateway_c', method: 'pix' });

    // Enabled again and routed to an unreachable address: a gateway error, not a routing one.
    await cli(service, ['gateway', 'enable', 'gateway_a', '--env', tenant.environmentId]);
    await cli(service, ['route', 'set', 'PIX', 'gateway_a', '--env', tenant.environmentId]);
    const unreachable = await create();
    expect(unreachable.status).toBe(502);
    expect(unreachable.body.provider).toBe('gateway_a');
  });

  it('refuses credentials that do not fit the gateway, naming fields and never values', async () => {
    const reply = await cli(service, ['gateway', 'set', '--env', tenant.environmentId, '--gateway', 'gateway_b', '--base-url', 'http://127.0.0.1:9', '--credentials', '{"secretKey":"oops-secret-value"}']);
    expect(reply.code).not.toBe(0);
    expect(reply.stderr).toMatch(/apiKey|webhookToken/);
    expect(reply.stderr).not.toContain('oops-secret-value');
  });

  it('stores gateway credentials sealed, never in plaintext', async () => {
    const rows = await service.services.db.fork().getConnection().execute<{ row: string }[]>('select row_to_json(g)::text as row from gateway_accounts g');
    expect(rows.length).toBeGreaterThan(0);
    for (const { row } of rows) expect(row).not.toMatch(/sk_sim_a_|cs_sim_c_/);
  });
});

describe('gateway_c card payments need a phone', () => {
  it('invalid_input on customer.phone without one, and a checkout with one', async () => {
    const tenant = await createTenant(service);
    const sandbox = await startSandbox(service, tenant.environmentId, { CARD: 'gateway_c' });
    const create = (customer: Record<string, unknown>) =>
      call(service.url, 'POST', '/v1/payments', { key: tenant.apiKey, body: validPayment({ method: 'card', card: { installments: 24 }, customer }) });
    const base = { name: 'Ana', email: 'ana@example.com', document: '12345678909' };
    const refused = await create(base);
    expect(refused.status).toBe(400);
    expect(refused.body.issues).toEqual([{ path: ['customer', 'phone'], message: expect.any(String) }]);
    const ok = await create({ ...base, phone: '(11) 98765-4321' });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ gateway: 'gateway_c', method: 'card', checkoutUrl: expect.stringMatching(/^http/) });
    expect(ok.body.gatewayRef).toMatch(/^pl_/);
    await sandbox.close();
  });
});

describe('inbound gateway webhooks', () => {
  let tenant: TestTenant;
  let sandbox: Sandbox;
  beforeAll(async () => {
    tenant = await createTenant(service);
    sandbox = await startSandbox(service, tenant.environmentId, { PIX: 'gateway_a', CARD: 'gateway_c' });
  });
  afterAll(() => sandbox?.close());

  const create = (overrides: Record<string, unknown> = {}) => call(service.url, 'POST', '/v1/payments', { key: tenant.apiKey, body: validPayment(overrides) });
  const events = async (id: string) => (await service.services.db.fork().find(OutboxEvent, { resourceId: id }, { orderBy: { sequence: 'asc' } })).map((e) => e.type);
  const statusOf = async (id: string) => (await call(service.url, 'GET', `/v1/payments/${id}`, { key: tenant.apiKey })).body.status;
  const webhookPath = (gateway: string) => `/webhooks/${gateway}/${sandbox.accountIds[gateway as 'gateway_a']}`;

  it('a forged or unsigned webhook is refused and changes nothing', async () => {
    const paidOne = (await create()).body;
    const target = (await create()).body;
    await sandbox.sims.gateway_a.payPayment(paidOne.gatewayRef);
    const log = sandbox.sims.gateway_a.webhookLog();
    const genuine = log[log.length - 1]!;
    expect(genuine.body).toContain(paidOne.gatewayRef);
    // The same "paid" notification, rewritten to claim the other payment was paid.
    const forgedBody = genuine.body.replaceAll(paidOne.gatewayRef, target.gatewayRef);
    for (const headers of [{}, genuine.headers, { 'gateway-a-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` }]) {
      const reply = await call(service.url, 'POST', webhookPath('gateway_a'), { rawBody: forgedBody, headers: { ...headers, 'content-type': 'application/json' } });
      expect(reply.status).toBe(401);
    }
    expect(await statusOf(target.id)).toBe('pending');
    expect(await statusOf(paidOne.id)).toBe('paid');
    expect((await call(service.url, 'POST', '/webhooks/gateway_a/gwa_unknown', { rawBody: '{}' })).status).toBe(404);
  });

  it('the same webhook delivered 5 times applies once', async () => {
    const payment = (await create()).body;
    await sandbox.sims.gateway_a.payPayment(payment.gatewayRef);
    for (let i = 0; i < 4; i++) await sandbox.sims.gateway_a.replayWebhooks({ last: 1 });
    expect(await statusOf(payment.id)).toBe('paid');
    expect(await events(payment.id)).toEqual(['payment.created', 'payment.pending', 'payment.paid']);
  });

  it('gateway_a stamps whole seconds: a notification of the sync\'s own second is not older, and moves a payment back (processing → pending)', async () => {
    const sim = sandbox.sims.gateway_a;
    const payment = (await create()).body;
    await sim.setPaymentStatus(payment.gatewayRef, 'processing');
    expect(await statusOf(payment.id)).toBe('processing');
    const sync = () => call(service.url, 'POST', `/v1/payments/${payment.id}/sync`, { key: tenant.apiKey });
    const stayed = await withinOneSecond(
      async () => {
        expect((await sync()).body.status).toBe('processing');
        // The bank asks the payer to confirm again: back to pending, notified within the second the sync read it.
        await sim.setPaymentStatus(payment.gatewayRef, 'requires_action');
        return lastEventSecond(sim.webhookLog());
      },
      () => sim.setPaymentStatus(payment.gatewayRef, 'processing'),
    );
    expect(stayed).toBe(true);
    expect(await statusOf(payment.id)).toBe('pending');
  });

  it('a paid arriving before pending leaves the payment paid', async () => {
    const payment = (await create({ method: 'card', customer: { name: 'A', email: 'a@b.co', document: '12345678909', phone: '11987654321' } })).body;
    await sandbox.sims.gateway_c.payPayment(payment.gatewayRef);
    expect(await statusOf(payment.id)).toBe('paid');
    // Deliver the earlier webhooks again, newest first: older states must not win.
    await sandbox.sims.gateway_c.replayWebhooks({ last: 3, reverse: true });
    expect(await statusOf(payment.id)).toBe('paid');
    expect((await events(payment.id)).filter((type) => type === 'payment.paid')).toHaveLength(1);
  });
});
