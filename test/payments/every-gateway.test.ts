/** The payment transitions of the contract on each gateway, through its simulator, over real sockets. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayName } from '../../server/contract/enums';
import { OutboxEvent } from '../../server/db/entities';
import type { ContractChecker } from '../support/contract';
import { call, validPayment } from '../support/http';
import type { Sandbox } from '../support/gateways';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import type { TestService } from '../support/service';
import type { TestTenant } from '../support/tenant';

let service: TestService;
let tenant: TestTenant;
let sandbox: Sandbox;
let contract: ContractChecker;
let world: SandboxedService;

beforeAll(async () => {
  world = await startSandboxedService({ env: { RATE_LIMIT_PAYMENTS_CREATE: '1000' } });
  ({ service, tenant, sandbox, contract } = world);
});
afterAll(() => world?.stop());

const customer = { name: 'Ana Souza', email: 'ana@example.com', document: '529.982.247-25', phone: '+55 (11) 98765-4321' };

async function send(method: 'GET' | 'POST', path: string, documented: string, body?: unknown) {
  const reply = await call(service.url, method, path, { key: tenant.apiKey, body });
  contract.expectConforms(method, documented, reply);
  return reply;
}
const create = (method: 'pix' | 'card') => send('POST', '/v1/payments', '/v1/payments', validPayment({ method, customer }));
const get = (id: string) => send('GET', `/v1/payments/${id}`, '/v1/payments/{id}');
const events = async (id: string) => (await service.services.db.fork().find(OutboxEvent, { resourceId: id }, { orderBy: { sequence: 'asc' } })).map((e) => e.type);

describe.each(['gateway_a', 'gateway_b', 'gateway_c'] as GatewayName[])('card on %s', (gateway) => {
  beforeAll(() => sandbox.route('CARD', gateway));

  it('hosted checkout → approved → paid with the card summary', async () => {
    const created = await create('card');
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ gateway, method: 'card', status: 'pending', checkoutUrl: expect.stringMatching(/^http/), pix: null, card: null });
    await sandbox.sims[gateway].payPayment(created.body.gatewayRef, { brand: 'mastercard', last4: '5454' });
    const paid = await get(created.body.id);
    expect(paid.body).toMatchObject({ status: 'paid', card: { brand: 'mastercard', last4: '5454' } });
    expect(await events(created.body.id)).toEqual(['payment.created', 'payment.pending', 'payment.paid']);
  });

  it('declined → failed, expired → expired', async () => {
    const declined = (await create('card')).body;
    await sandbox.sims[gateway].declinePayment(declined.gatewayRef);
    expect((await get(declined.id)).body.status).toBe('failed');
    const expired = (await create('card')).body;
    await sandbox.sims[gateway].expirePayment(expired.gatewayRef);
    expect((await get(expired.id)).body.status).toBe('expired');
    expect(await events(expired.id)).toEqual(['payment.created', 'payment.pending', 'payment.expired']);
  });

  it(gateway === 'gateway_b' ? 'cancel is not implemented by the gateway' : 'cancel → canceled', async () => {
    const payment = (await create('card')).body;
    const reply = await send('POST', `/v1/payments/${payment.id}/cancel`, '/v1/payments/{id}/cancel');
    if (gateway === 'gateway_b') {
      expect(reply.status).toBe(501);
      expect(reply.body).toMatchObject({ error: 'not_implemented', action: 'cancel', provider: 'gateway_b' });
    } else {
      expect(reply.status).toBe(200);
      expect(reply.body.status).toBe('canceled');
      expect(await events(payment.id)).toContain('payment.canceled');
    }
  });
});

describe.each(['gateway_a', 'gateway_b', 'gateway_c'] as GatewayName[])('Pix on %s', (gateway) => {
  beforeAll(() => sandbox.route('PIX', gateway));

  it(gateway === 'gateway_c' ? 'is not supported: 409 method_not_supported' : 'pending with its code → paid; another expires', async () => {
    const created = await create('pix');
    if (gateway === 'gateway_c') {
      expect(created.status).toBe(409);
      expect(created.body).toMatchObject({ error: 'method_not_supported', provider: 'gateway_c', method: 'pix' });
      return;
    }
    expect(created.body).toMatchObject({ status: 'pending', checkoutUrl: null, pix: { qrCode: expect.any(String), qrCodeText: expect.any(String) } });
    await sandbox.sims[gateway].payPayment(created.body.gatewayRef);
    expect((await get(created.body.id)).body.status).toBe('paid');
    const other = (await create('pix')).body;
    await sandbox.sims[gateway].expirePayment(other.gatewayRef);
    expect((await get(other.id)).body.status).toBe('expired');
  });
});

describe('personal data at rest', () => {
  it('the full tax document is sent to the gateway but stored nowhere in plaintext', async () => {
    await sandbox.route('CARD', 'gateway_a');
    const payment = (await create('card')).body;
    expect(payment.customer.documentLast4).toBe('4725');
    const connection = service.services.db.fork().getConnection();
    const rows = await connection.execute<{ row: string }[]>('select row_to_json(p)::text as row from payments p');
    const dump = rows.map((r) => r.row).join('\n');
    expect(dump).toContain(payment.id);
    expect(dump).not.toContain('52998224725');
    expect(dump).not.toContain('529.982.247-25');
    expect(service.logs()).not.toContain('52998224725');
  });
});
