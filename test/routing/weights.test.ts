/**
 * Weights split new creates between a rule's gateways (decision 21),
 * deterministically per externalId: 1,000 creates with random externalIds
 * land within ±5 points of 80/20, and a repeated externalId always lands on
 * the gateway its first create went to.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitBucket, tryOrder } from '../../server/domain/routing/rules';
import { call, validPayment } from '../support/http';
import { startSandbox, type Sandbox } from '../support/gateways';
import { startTestService, type TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';

let service: TestService;
let tenant: TestTenant;
let sandbox: Sandbox;

beforeAll(async () => {
  service = await startTestService({ env: { RATE_LIMIT_PAYMENTS_CREATE: '100000' } });
  tenant = await createTenant(service);
  sandbox = await startSandbox(service, tenant.environmentId);
  await service.admin.routing.set({ environmentId: tenant.environmentId, method: 'CARD', gateways: [{ gateway: 'gateway_a', weight: 80 }, { gateway: 'gateway_b', weight: 20 }] });
});
afterAll(async () => {
  await sandbox?.close();
  await service?.stop();
});

const card = (externalId: string) => validPayment({ externalId, method: 'card', card: { installments: 1 } });

describe('weights 80/20', () => {
  it('1,000 creates with random externalIds split within ±5 points; a repeated externalId lands on its first gateway', async () => {
    const externalIds = Array.from({ length: 1_000 }, () => `order-${randomUUID()}`);
    const landed = new Map<string, string>();
    for (let start = 0; start < externalIds.length; start += 20) {
      const batch = externalIds.slice(start, start + 20);
      const replies = await Promise.all(batch.map((externalId) => call(service.url, 'POST', '/v1/payments', { key: tenant.apiKey, body: card(externalId) })));
      for (const [index, reply] of replies.entries()) {
        expect(reply.status).toBe(201);
        landed.set(batch[index]!, reply.body.gateway);
      }
    }
    const atA = [...landed.values()].filter((gateway) => gateway === 'gateway_a').length;
    const atB = [...landed.values()].filter((gateway) => gateway === 'gateway_b').length;
    expect(atA + atB).toBe(1_000);
    expect(atA).toBeGreaterThanOrEqual(750);
    expect(atA).toBeLessThanOrEqual(850);
    expect(atB).toBeGreaterThanOrEqual(150);
    expect(atB).toBeLessThanOrEqual(250);
    // Each went where the hash of its externalId falls, as the trace says.
    const sample = externalIds.slice(0, 5);
    for (const externalId of sample) {
      const payment = (await call(service.url, 'GET', `/v1/payments?externalId=${externalId}`, { key: tenant.apiKey })).body;
      const trace = await service.admin.payments.trace({ environmentId: tenant.environmentId, paymentId: payment.id });
      expect(trace.reason).toContain(`falls at ${splitBucket(tenant.environmentId, 'CARD', externalId)} of 100, on ${landed.get(externalId)}`);
      expect(trace.rule).toEqual([{ gateway: 'gateway_a', weight: 80 }, { gateway: 'gateway_b', weight: 20 }]);
    }

    // Repeats answer the payment of the first create, on its gateway.
    const repeated = externalIds.slice(0, 40);
    const again = await Promise.all(repeated.map((externalId) => call(service.url, 'POST', '/v1/payments', { key: tenant.apiKey, body: card(externalId) })));
    for (const [index, reply] of again.entries()) {
      expect(reply.headers.get('idempotent-replayed')).toBe('true');
      expect(reply.body.gateway).toBe(landed.get(repeated[index]!));
    }

    // An externalId whose create failed at its gateway is retried at the same gateway (the split never moves it).
    const firstAtB = externalIds.find((externalId) => landed.get(externalId) === 'gateway_b')!;
    const retried = `${firstAtB}-retry`;
    const goesTo = tryOrder([{ gateway: 'gateway_a', weight: 80 }, { gateway: 'gateway_b', weight: 20 }], tenant.environmentId, 'CARD', retried).order[0]!.gateway;
    sandbox.sims[goesTo].injectFault('createPayment', { kind: 'client_error', status: 409 });
    const failed = await call(service.url, 'POST', '/v1/payments', { key: tenant.apiKey, body: card(retried) });
    expect(failed.status).toBe(502);
    const retry = await call(service.url, 'POST', '/v1/payments', { key: tenant.apiKey, body: card(retried) });
    expect(retry.status).toBe(201);
    expect(retry.body.gateway).toBe(goesTo);
  }, 600_000);

  it('the dry run tells where an externalId goes, and the breakdown of the split without one', async () => {
    const explained = await service.admin.routing.explain({ environmentId: tenant.environmentId, method: 'CARD' });
    expect(explained.reason).toContain('gateway_a 80%, gateway_b 20%');
    for (const externalId of ['a', 'b', 'c', 'd', 'e', 'f']) {
      const dry = await service.admin.routing.explain({ environmentId: tenant.environmentId, method: 'CARD', externalId });
      expect(dry.chosen).toBe(splitBucket(tenant.environmentId, 'CARD', externalId) < 80 ? 'gateway_a' : 'gateway_b');
    }
  });
});
