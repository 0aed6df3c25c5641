/**
 * Refunds in the operator API the dashboard and the CLI use: refunds.create
 * (the same use case as /v1, for an environment, with an externalId made when
 * none is given), refunds.list and refunds.get, a payment's detail with its
 * refunds and their events in its timeline, the payments list filtered to
 * refunded ones, and `trigger refund.*` in the dev loop (a payment made, paid
 * and refunded through the simulators).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorContext } from '../../server/operator/procedure';
import { operatorRouter } from '../../server/operator/router';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { createTenant } from '../support/tenant';
import { refundApi, uniqueId } from './support';
import { readUntil } from '../support/outbox-events';

let world: SandboxedService;
let t: ReturnType<typeof refundApi>;

beforeAll(async () => {
  world = await startSandboxedService({ simulatorsInService: true, env: { RATE_LIMIT_PAYMENTS_CANCEL: '1000', RATE_LIMIT_DEFAULT: '100000' }, routes: { PIX: 'gateway_a', CARD: 'gateway_a' } });
  t = refundApi(world);
});
afterAll(() => world?.stop());

/** A caller per call, as each HTTP request of the dashboard or the CLI has its own unit of work (the test service's `admin` keeps one). */
const admin = () => operatorRouter.createCaller(operatorContext(world.service.services));

describe('refunds in the operator API', () => {
  it('refunds.create refunds a paid payment like the API, making an externalId when none is given; repeating one is the same refund', async () => {
    const payment = await t.paidPayment('gateway_a', 3000);
    const environmentId = world.tenant.environmentId;
    const first = await admin().refunds.create({ environmentId, paymentId: payment.id, amount: 1000, reason: 'damaged item' });
    expect(first).toMatchObject({ paymentId: payment.id, amount: 1000, reason: 'damaged item', status: 'pending', environmentId, gateway: 'gateway_a', gatewayStatus: expect.any(String) });
    expect(first.externalId).toMatch(/^operator-refund-/);
    const rest = await admin().refunds.create({ environmentId, paymentId: payment.id, externalId: 'support-ticket-81' });
    expect(rest.amount).toBe(2000);
    expect(await admin().refunds.create({ environmentId, paymentId: payment.id, externalId: 'support-ticket-81' })).toEqual(rest);
    // The API sees the same refunds, and the same rules apply.
    expect((await t.api('GET', '/v1/refunds?externalId=support-ticket-81')).body.id).toBe(rest.id);
    await expect(admin().refunds.create({ environmentId, paymentId: payment.id, amount: 1 })).rejects.toMatchObject({ message: expect.stringContaining('0 of 3000 is refundable') });
  });

  it('refunds.create refuses a payment of another environment as not found, and a payment that is not paid with the API\'s reason', async () => {
    const payment = await t.paidPayment('gateway_a', 1000);
    const other = await createTenant(world.service);
    await expect(admin().refunds.create({ environmentId: other.environmentId, paymentId: payment.id })).rejects.toMatchObject({ message: expect.stringContaining(`No payment ${payment.id}`) });
    const pending = await t.api('POST', '/v1/payments', { amount: 1000, method: 'pix', externalId: uniqueId('unpaid'), customer: { name: 'Ana', email: 'ana@example.com', document: '52998224725' } });
    await expect(admin().refunds.create({ environmentId: world.tenant.environmentId, paymentId: pending.body.id })).rejects.toMatchObject({ message: expect.stringContaining('Only a paid payment can be refunded') });
    expect((await admin().refunds.list({ environmentId: other.environmentId })).items).toEqual([]);
  });

  it('refunds.list (an environment\'s, or one payment\'s, newest first) and refunds.get', async () => {
    const payment = await t.paidPayment('gateway_a', 2000);
    const environmentId = world.tenant.environmentId;
    const a = await admin().refunds.create({ environmentId, paymentId: payment.id, amount: 500 });
    const b = await admin().refunds.create({ environmentId, paymentId: payment.id, amount: 700 });
    const ofPayment = (await admin().refunds.list({ environmentId, paymentId: payment.id })).items;
    expect(ofPayment.map((refund) => refund.id)).toEqual([b.id, a.id]);
    const all = (await admin().refunds.list({ environmentId })).items;
    expect(all.map((refund) => refund.id)).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(all.every((refund) => refund.id.startsWith('ref_'))).toBe(true);
    await t.atGateway('gateway_a', a as { id: string; gatewayRef: string }, 'settle');
    expect(await admin().refunds.get({ refundId: a.id })).toMatchObject({ id: a.id, status: 'succeeded', environmentId, nextReadAt: null });
    await expect(admin().refunds.get({ refundId: 'ref_000000000000000000000000' })).rejects.toMatchObject({ message: 'Refund ref_000000000000000000000000 does not exist.' });
  });

  it('the payment detail holds its refunds and their events in its timeline; the payments list filters refunded payments', async () => {
    const refunded = await t.paidPayment('gateway_a', 1500);
    const untouched = await t.paidPayment('gateway_a', 1500);
    const environmentId = world.tenant.environmentId;
    const refund = await admin().refunds.create({ environmentId, paymentId: refunded.id, amount: 1500 });
    await t.atGateway('gateway_a', refund as { id: string; gatewayRef: string }, 'settle');

    const detail = await admin().payments.get({ paymentId: refunded.id });
    expect(detail.payment).toMatchObject({ status: 'paid', amountRefunded: 1500 });
    expect(detail.refunds).toEqual([expect.objectContaining({ id: refund.id, status: 'succeeded', amount: 1500 })]);
    expect(detail.events.map((event) => event.type)).toEqual(['payment.created', 'payment.pending', 'payment.paid', 'refund.created', 'refund.succeeded']);
    expect((await admin().payments.get({ paymentId: untouched.id })).refunds).toEqual([]);

    const list = await admin().payments.list({ environmentId, refunded: true, limit: 100 });
    const ids = list.items.map((item) => item.id);
    expect(ids).toContain(refunded.id);
    expect(ids).not.toContain(untouched.id);
    expect(list.items.find((item) => item.id === refunded.id)).toMatchObject({ amountRefunded: 1500 });
    expect((await admin().payments.list({ environmentId, limit: 100 })).items.map((item) => item.id)).toContain(untouched.id);
  });
});

describe('the dev loop', () => {
  it.each([
    ['refund.created', ['payment.created', 'payment.pending', 'payment.paid', 'refund.created']],
    ['refund.succeeded', ['payment.created', 'payment.pending', 'payment.paid', 'refund.created', 'refund.succeeded']],
    ['refund.failed', ['payment.created', 'payment.pending', 'payment.paid', 'refund.created', 'refund.failed']],
  ] as const)('trigger %s: a payment made, paid and refunded through the simulators', async (eventType, types) => {
    const result = await admin().simulators.trigger({ eventType, environmentId: world.tenant.environmentId });
    expect(result.resourceId).toMatch(/^ref_/);
    expect(result.events.map((event) => event.type)).toEqual(types);
    expect(result.steps.map((step) => step.action)).toEqual(['create pix payment', 'sim pay', 'refund', ...(eventType === 'refund.created' ? [] : [`sim refund ${eventType === 'refund.succeeded' ? 'settle' : 'fail'}`])]);
    const refund = await readUntil(() => t.api('GET', `/v1/refunds/${result.resourceId}`), (reply) => eventType === 'refund.created' || reply.body.status !== 'pending');
    expect(refund.body.status).toBe({ 'refund.created': 'pending', 'refund.succeeded': 'succeeded', 'refund.failed': 'failed' }[eventType]);
  });
});
