/**
 * A create whose reservation the database lost (commit 6d9f46b): the create
 * inserts its payment without waiting for the disk (create-once.ts,
 * insertWithLease), calls the gateway, then registers the row
 * (registration/commit.ts). A crash or a failover between the insert and the
 * registration loses the row after the gateway made its resource. Made
 * here without timing luck: gateway_a's account points at a relay that holds
 * the create's gateway call while the test deletes the payment's row, as the
 * lost write would, and then lets it through. The create answers 503
 * service_unavailable with Retry-After, never a 500; its retry with the same
 * externalId answers 201, and the gateway made one resource in all, found
 * again by the same idempotency key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewaySimulators, type GatewaySimulator } from '../../server/sandbox/simulators';
import { simulatorCredentials } from '../support/gateways';
import { startHoldingRelay, type HoldingRelay } from '../support/holding-relay';
import { call, validPayment } from '../support/http';
import { eventually } from '../support/outbox-events';
import { startTestService, type TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';

describe('a payment row lost between its insert and its registration', () => {
  let service: TestService;
  let tenant: TestTenant;
  let gateway: GatewaySimulator;
  let relay: HoldingRelay;

  beforeAll(async () => {
    // No reconciliation pass: nothing but the create and its retry may touch the payment or call the gateway.
    service = await startTestService({ env: { RECONCILIATION: 'false' } });
    tenant = await createTenant(service);
    const credentials = simulatorCredentials().gateway_a;
    gateway = await gatewaySimulators.gateway_a({ credentials });
    relay = await startHoldingRelay(gateway.url);
    const account = await service.admin.gateways.configure({ environmentId: tenant.environmentId, gateway: 'gateway_a', baseUrl: relay.url, credentials });
    gateway.setWebhookUrl(account.webhookUrl);
    await service.admin.routing.set({ environmentId: tenant.environmentId, method: 'PIX', gateway: 'gateway_a' });
  }, 180_000);

  afterAll(async () => {
    relay?.release();
    await relay?.close();
    await gateway?.close();
    await service?.stop();
  });

  const paymentRows = async (externalId: string) =>
    service.services.db
      .fork()
      .getConnection()
      .execute<{ id: string }[]>('select id from payments where environment_id = ? and external_id = ?', [tenant.environmentId, externalId]);

  it('answers 503 service_unavailable with Retry-After, and the retry makes the payment once with the same gateway resource', async () => {
    const payment = validPayment();
    const create = () => call(service.url, 'POST', '/v1/payments', { key: tenant.apiKey, body: payment });

    relay.hold();
    const first = create();
    // The create's insert is committed and its gateway call is waiting here: the row is there to be lost.
    await eventually(async () => relay.held() === 1, 15_000, 'the create waiting at the gateway');
    const [reserved] = await paymentRows(payment.externalId);
    expect(reserved, 'the reservation inserted before the gateway call').toBeDefined();
    const deleted = await service.services.db.fork().getConnection().execute<{ id: string }[]>('delete from payments where id = ? returning id', [reserved!.id]);
    expect(deleted).toEqual([reserved]);
    relay.release();

    const lost = await first;
    expect(lost.status, lost.text).toBe(503);
    expect(lost.body).toEqual({ error: 'service_unavailable', message: expect.any(String) });
    expect(lost.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(gateway.stats().created.payments, 'the gateway made the resource before the row was found lost').toBe(1);
    expect(service.logs()).not.toMatch(/"level":50/);

    const retried = await create();
    expect(retried.status, retried.text).toBe(201);
    expect(retried.body).toMatchObject({ externalId: payment.externalId, gateway: 'gateway_a', gatewayRef: expect.any(String) });
    expect((await call(service.url, 'GET', `/v1/payments/${retried.body.id}`, { key: tenant.apiKey })).status).toBe(200);
    expect(await paymentRows(payment.externalId)).toEqual([{ id: retried.body.id }]);

    // One resource at the gateway: the retry's call carried the first call's idempotency key and got the same one back.
    const creates = relay.requests.filter((request) => request.method === 'POST' && request.path === '/v1/payments');
    expect(creates).toHaveLength(2);
    expect(creates[0]!.idempotencyKey).toBeTruthy();
    expect(creates[1]!.idempotencyKey).toBe(creates[0]!.idempotencyKey);
    expect(gateway.stats().created.payments).toBe(1);
  });
});
