/**
 * "New test payment" (sandbox.createPayment): the dashboard creates a sandbox
 * payment through the same use case as POST /v1/payments, so it reaches the
 * gateway simulator, can be paid with the simulator buttons and emits the
 * same events; production environments and viewers are refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemberRole } from '../../server/operator/access';
import { operatorContext } from '../../server/operator/procedure';
import { operatorRouter } from '../../server/operator/router';
import { call, validPayment } from '../support/http';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';

let world: SandboxedService;
let productionEnvironmentId: string;

const as = (role: MemberRole) =>
  operatorRouter.createCaller(operatorContext(world.service.services, world.service.services.log, { kind: 'member', userId: 'usr_test', roles: new Map([[world.tenant.organizationId, role]]) }));
const testPayment = (overrides: Record<string, unknown> = {}) => ({ ...validPayment(overrides), currency: 'BRL' as const, method: 'pix' as const });

beforeAll(async () => {
  world = await startSandboxedService({ simulatorsInService: true, routes: { PIX: 'gateway_a', CARD: 'gateway_b' } });
  productionEnvironmentId = (await world.service.admin.environments.create({ projectId: world.tenant.projectId, kind: 'production' })).id;
}, 60_000);
afterAll(async () => {
  await world?.stop();
});

describe('a test payment from the dashboard', () => {
  it('is registered at the sandbox gateway, readable on /v1, and paid with the simulator', async () => {
    const payment = await as('developer').sandbox.createPayment({ environmentId: world.tenant.environmentId, payment: testPayment({ externalId: 'dash-test-1' }) });
    expect(payment).toMatchObject({ status: 'pending', method: 'pix', gateway: 'gateway_a', externalId: 'dash-test-1' });
    expect(payment.pix?.qrCodeText).toBeTruthy();

    const read = await call(world.service.url, 'GET', `/v1/payments/${payment.id}`, { key: world.tenant.apiKey });
    expect(read.status).toBe(200);
    expect(read.body.id).toBe(payment.id);

    await as('developer').simulators.payment({ paymentId: payment.id, outcome: 'pay' });
    const detail = await as('viewer').payments.get({ paymentId: payment.id });
    expect(detail.payment.status).toBe('paid');
    expect(detail.events.map((event) => event.type)).toEqual(expect.arrayContaining(['payment.created', 'payment.paid']));

    // Paying it again (a double click, a second tab): the sandbox gateway refuses, and that reads as a conflict saying why.
    await expect(as('developer').simulators.payment({ paymentId: payment.id, outcome: 'pay' })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining(`Payment ${payment.id} cannot do that now`),
    });
  });

  it('is idempotent by externalId, like the API', async () => {
    const first = await as('owner').sandbox.createPayment({ environmentId: world.tenant.environmentId, payment: testPayment({ externalId: 'dash-twice' }) });
    const again = await as('owner').sandbox.createPayment({ environmentId: world.tenant.environmentId, payment: testPayment({ externalId: 'dash-twice' }) });
    expect(again.id).toBe(first.id);
  });

  it('is refused in production, to viewers, and with the API’s own validation message', async () => {
    await expect(as('owner').sandbox.createPayment({ environmentId: productionEnvironmentId, payment: testPayment() })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringContaining('sandbox environments only'),
    });
    await expect(as('viewer').sandbox.createPayment({ environmentId: world.tenant.environmentId, payment: testPayment() })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(as('developer').sandbox.createPayment({ environmentId: world.tenant.environmentId, payment: { ...testPayment(), amount: 0 } })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
  });
});
