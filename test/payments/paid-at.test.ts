/**
 * `paidAt` is the gateway's time of payment (decision 26): a Pix's settlement,
 * a card's capture, as each gateway reports it, from its notification and
 * from a read; the moment the service learns of it only when the gateway says
 * nothing. Real service, the three simulators over sockets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayName } from '../../server/contract/enums';
import { call, validPayment } from '../support/http';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';

let world: SandboxedService;
beforeAll(async () => {
  world = await startSandboxedService({ env: { RATE_LIMIT_PAYMENTS_SYNC: '1000' } });
});
afterAll(() => world?.stop());

const customer = { name: 'Ana Souza', email: 'ana@example.com', document: '529.982.247-25', phone: '+55 (11) 98765-4321' };
const api = (method: 'GET' | 'POST', path: string) => call(world.service.url, method, path, { key: world.tenant.apiKey });
const create = async (method: 'pix' | 'card') => {
  const reply = await call(world.service.url, 'POST', '/v1/payments', { key: world.tenant.apiKey, body: validPayment({ method, customer }) });
  expect(reply.status).toBe(201);
  return reply.body;
};
/** An hour ago, in whole seconds (gateway_a's timestamps are Unix seconds): clearly not when the service hears of it. */
const anHourAgo = () => new Date(Math.floor((Date.now() - 3_600_000) / 1000) * 1000);

const cases: [GatewayName, 'pix' | 'card'][] = [
  ['gateway_a', 'pix'],
  ['gateway_a', 'card'],
  ['gateway_b', 'pix'],
  ['gateway_b', 'card'],
  ['gateway_c', 'card'],
];

describe.each(cases)('%s, %s', (gateway, method) => {
  beforeAll(() => world.sandbox.route(method === 'pix' ? 'PIX' : 'CARD', gateway));
  const sim = () => world.sandbox.sims[gateway];

  it('paid by a notification: paidAt is the gateway\'s time of payment', async () => {
    const payment = await create(method);
    const paidAt = anHourAgo();
    await sim().payPayment(payment.gatewayRef, undefined, paidAt);
    const read = await api('GET', `/v1/payments/${payment.id}`);
    expect(read.body.status).toBe('paid');
    expect(read.body.paidAt).toBe(paidAt.toISOString());
  });

  it('paid by a read (the notification lost): paidAt is the gateway\'s time of payment, not the sync\'s', async () => {
    const payment = await create(method);
    const paidAt = anHourAgo();
    sim().setWebhooksEnabled(false);
    try {
      await sim().payPayment(payment.gatewayRef, undefined, paidAt);
    } finally {
      sim().setWebhooksEnabled(true);
    }
    expect((await api('GET', `/v1/payments/${payment.id}`)).body.status).toBe('pending');
    const synced = await api('POST', `/v1/payments/${payment.id}/sync`);
    expect(synced.body.status).toBe('paid');
    expect(synced.body.paidAt).toBe(paidAt.toISOString());
    expect((await api('GET', `/v1/payments/${payment.id}`)).body.paidAt).toBe(paidAt.toISOString());
  });
});
