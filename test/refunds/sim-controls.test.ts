/**
 * The operator's refund controls of the sandbox simulators, through the
 * internal API and `payments-admin sim refund-settle|refund-fail|
 * refund-settlement` run as its own process, against a service whose
 * simulators run in it: a refund made through /v1 settles or fails at its
 * gateway by our id or by the gateway's, the notification reaches the
 * service, and a gateway told to settle at once answers new refunds settled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemberRole } from '../../server/operator/access';
import { operatorContext } from '../../server/operator/procedure';
import { operatorRouter } from '../../server/operator/router';
import { cli } from '../support/cli';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { refundApi, uniqueId } from './support';
import { readUntil } from '../support/outbox-events';

let world: SandboxedService;
let t: ReturnType<typeof refundApi>;

const as = (role: MemberRole) =>
  operatorRouter.createCaller(operatorContext(world.service.services, world.service.services.log, { kind: 'member', userId: 'usr_test', roles: new Map([[world.tenant.organizationId, role]]) }));
const admin = (args: string[]) => cli(world.service, args);
const refundRead = (id: string) => t.api('GET', `/v1/refunds/${id}`);

beforeAll(async () => {
  world = await startSandboxedService({ simulatorsInService: true, env: { RATE_LIMIT_PAYMENTS_CANCEL: '1000' }, routes: { PIX: 'gateway_a', CARD: 'gateway_b' } });
  t = refundApi(world);
}, 60_000);
afterAll(() => world?.stop());

async function pendingRefund(gateway: 'gateway_a' | 'gateway_b', method: 'pix' | 'card', amount = 1_000) {
  const payment = await t.paidPayment(gateway, 5_000, method);
  const created = await t.refund(payment.id, { externalId: uniqueId('refund'), amount });
  expect(created.status, created.text).toBe(201);
  expect(created.body.status).toBe('pending');
  return created.body as { id: string; gatewayRef: string; paymentId: string };
}

describe('refund controls of the sandbox', () => {
  it('a developer settles a refund by its ref_ id: the gateway notifies and the refund and payment show it; a second settle is a conflict', async () => {
    const refund = await pendingRefund('gateway_a', 'pix');
    const settled = await as('developer').simulators.refund({ refundId: refund.id, outcome: 'settle' });
    expect(settled).toMatchObject({ id: refund.id, status: 'succeeded' });
    expect((await refundRead(refund.id)).body.status).toBe('succeeded');
    expect((await t.api('GET', `/v1/payments/${refund.paymentId}`)).body.amountRefunded).toBe(1_000);
    await expect(as('developer').simulators.refund({ refundId: refund.id, outcome: 'fail' })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining(`Refund ${refund.id} cannot do that now`),
    });
    await expect(as('viewer').simulators.refund({ refundId: refund.id, outcome: 'settle' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('`sim refund-fail ref_…` fails an estorno at gateway_b: refund.failed with the gateway reason', async () => {
    const refund = await pendingRefund('gateway_b', 'card');
    const run = await admin(['sim', 'refund-fail', refund.id]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json).toMatchObject({ id: refund.id, status: 'failed' });
    const read = await readUntil(() => refundRead(refund.id), (reply) => reply.body.status === 'failed');
    expect(read.body).toMatchObject({ status: 'failed', failureReason: expect.any(String) });
    expect((await t.events(refund.id)).map((event) => event.type)).toEqual(['refund.created', 'refund.failed']);
  });

  it("`sim refund-settle <gateway's id> --gateway` for an operator; without --gateway it says what is missing", async () => {
    const refund = await pendingRefund('gateway_a', 'pix');
    const missing = await admin(['sim', 'refund-settle', refund.gatewayRef]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('Name the gateway');
    const run = await admin(['sim', 'refund-settle', refund.gatewayRef, '--gateway', 'gateway_a']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json).toEqual({ gateway: 'gateway_a', refundRef: refund.gatewayRef, outcome: 'settle' });
    const read = await readUntil(() => refundRead(refund.id), (reply) => reply.body.status !== 'pending');
    expect(read.body.status).toBe('succeeded');
    // A member cannot name a gateway's refund directly: that reaches past their organization's records.
    await expect(as('owner').simulators.refund({ refundId: refund.gatewayRef, gateway: 'gateway_a', outcome: 'fail' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('`sim refund-settlement gateway_a at-once`: a new refund is answered succeeded; `later` brings pending back', async () => {
    await expect(as('owner').simulators.refundSettlement({ gateway: 'gateway_a', mode: 'at-once' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const atOnce = await admin(['sim', 'refund-settlement', 'gateway_a', 'at-once']);
    expect(atOnce.code, atOnce.stderr).toBe(0);
    try {
      const payment = await t.paidPayment('gateway_a', 2_000, 'pix');
      const created = await t.refund(payment.id, { externalId: uniqueId('at-once') });
      expect(created.status, created.text).toBe(201);
      expect(created.body).toMatchObject({ status: 'succeeded', amount: 2_000 });
    } finally {
      expect((await admin(['sim', 'refund-settlement', 'gateway_a', 'later'])).code).toBe(0);
    }
    expect((await pendingRefund('gateway_a', 'pix')).gatewayRef).toBeTruthy();
    expect((await admin(['sim', 'refund-settlement', 'gateway_a', 'soon'])).code).not.toBe(0);
  });
});
