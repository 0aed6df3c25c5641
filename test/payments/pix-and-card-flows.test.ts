import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxEvent } from '../../server/db/entities';
import { call, validPayment } from '../support/http';
import type { Sandbox } from '../support/gateways';
import type { TestService } from '../support/service';
import type { TestTenant } from '../support/tenant';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';

let world: SandboxedService;
let service: TestService;
let tenant: TestTenant;
let sandbox: Sandbox;

beforeAll(async () => {
  world = await startSandboxedService({ routes: { PIX: 'gateway_a', CARD: 'gateway_a' } });
  ({ service, tenant, sandbox } = world);
});
afterAll(async () => {
  await world?.stop();
});

const create = (body: unknown) => call(service.url, 'POST', '/v1/payments', { key: tenant.apiKey, body });
const get = (id: string) => call(service.url, 'GET', `/v1/payments/${id}`, { key: tenant.apiKey });

async function eventsOf(paymentId: string): Promise<string[]> {
  const events = await service.services.db.fork().find(OutboxEvent, { resourceId: paymentId }, { orderBy: { sequence: 'asc' } });
  return events.map((e) => e.type);
}

describe.each(['gateway_a', 'gateway_b'] as const)('Pix on %s', (gateway) => {
  it('create → pending with its QR code → the customer pays → webhook → paid', async () => {
    await sandbox.route('PIX', gateway);
    const created = await create(validPayment({ method: 'PIX', amount: 2500 }));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'pending', method: 'pix', gateway, amount: 2500, currency: 'BRL', checkoutUrl: null, card: null });
    expect(created.body.id).toMatch(/^pay_/);
    expect(created.body.gatewayRef).toEqual(expect.any(String));
    expect(created.body.pix).toEqual({ qrCode: expect.any(String), qrCodeText: expect.any(String) });
    expect(created.body.customer).toEqual({ name: 'Maria Silva', email: 'maria@example.com', documentLast4: '8909' });

    await sandbox.sims[gateway].payPayment(created.body.gatewayRef);
    const paid = await get(created.body.id);
    expect(paid.body.status).toBe('paid');
    expect(await eventsOf(created.body.id)).toEqual(['payment.created', 'payment.pending', 'payment.paid']);
  });
});

describe('card on gateway_a', () => {
  it('create → checkoutUrl → declined → failed; expiry → expired', async () => {
    const created = await create(validPayment({ method: 'card', card: { installments: 3 } }));
    expect(created.status).toBe(201);
    expect(created.body.checkoutUrl).toMatch(/^https?:\/\//);
    expect(created.body.pix).toBeNull();
    await sandbox.sims.gateway_a.declinePayment(created.body.gatewayRef);
    expect((await get(created.body.id)).body.status).toBe('failed');

    const another = await create(validPayment({ method: 'card' }));
    await sandbox.sims.gateway_a.expirePayment(another.body.gatewayRef);
    expect((await get(another.body.id)).body.status).toBe('expired');
    expect(await eventsOf(another.body.id)).toContain('payment.expired');
  });

  it('refuses 13 installments on gateway_a before calling it', async () => {
    const before = sandbox.sims.gateway_a.stats().created.payments;
    const reply = await create(validPayment({ method: 'card', card: { installments: 13 } }));
    expect(reply.status).toBe(400);
    expect(reply.body.issues).toEqual([{ path: ['card', 'installments'], message: expect.stringContaining('12') }]);
    expect(sandbox.sims.gateway_a.stats().created.payments).toBe(before);
  });
});
