/**
 * Paid reports for an attempt a fallback abandoned (decisions 21 and 28): a
 * card the create left at gateway_a (its answer lost), found again and
 * canceled there, is then reported paid there, by a notification or found by
 * reconciliation's own reads with the notification lost. The attempt shows it
 * on the routing trace (operator API and CLI) with the time, a warn line says so, and
 * the payment, taken by gateway_b, never changes. Real service and simulators.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxEvent } from '../../server/db/entities';
import { cli } from '../support/cli';
import { call, validPayment } from '../support/http';
import { eventually } from '../support/outbox-events';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';

const FAST = { RECONCILIATION_SCHEDULE: '1s,2s', RECONCILIATION_POLL_INTERVAL_MS: '100', RECONCILIATION_LATE_SCHEDULE: '1s,2s', RECONCILIATION_LATE_WINDOW: '10m' };

describe('a paid report for an abandoned attempt (decision 28)', () => {
  let world: SandboxedService;
  beforeAll(async () => {
    world = await startSandboxedService({ env: FAST });
    await world.service.admin.routing.set({ environmentId: world.tenant.environmentId, method: 'CARD', gateways: [{ gateway: 'gateway_a' }, { gateway: 'gateway_b' }] });
  });
  afterAll(() => world?.stop());

  const sim = () => world.sandbox.sims.gateway_a;
  const trace = (paymentId: string) => world.service.admin.payments.trace({ environmentId: world.tenant.environmentId, paymentId });
  const eventTypes = async (id: string) => (await world.service.services.db.fork().find(OutboxEvent, { resourceId: id }, { orderBy: { sequence: 'asc' } })).map((e) => e.type);
  const warnings = (paymentId: string) =>
    world.service
      .logs()
      .split('\n')
      .filter((line) => line.includes(paymentId) && line.includes('abandoned routing attempt was reported paid'))
      .map((line) => JSON.parse(line) as { level: number });

  /** A card payment taken by gateway_b after gateway_a made a charge whose answer was lost; answers it once that orphan was canceled. */
  async function paymentWithOrphan() {
    sim().injectFault('createPayment', { kind: 'drop_response' });
    const reply = await call(world.service.url, 'POST', '/v1/payments', { key: world.tenant.apiKey, body: validPayment({ method: 'card' }) });
    expect(reply.status).toBe(201);
    expect(reply.body.gateway).toBe('gateway_b');
    const orphan = await eventually(async () => {
      const attempt = (await trace(reply.body.id)).attempts[0]!;
      return attempt.orphan === 'canceled' && attempt;
    }, 15_000, 'the orphan canceled');
    return { payment: reply.body, orphanRef: orphan.orphanRef! };
  }

  it('by its notification: marked on the trace with the time, one warn line, the payment unchanged', async () => {
    const { payment, orphanRef } = await paymentWithOrphan();
    const before = await eventTypes(payment.id);
    await sim().setPaymentStatus(orphanRef, 'succeeded');
    const marked = (await trace(payment.id)).attempts[0]!;
    expect(marked).toMatchObject({ gateway: 'gateway_a', orphan: 'canceled', orphanRef, reportedPaidAt: expect.any(String) });
    expect(Date.now() - Date.parse(marked.reportedPaidAt!)).toBeLessThan(60_000);
    expect(warnings(payment.id)).toEqual([expect.objectContaining({ level: 40 })]);
    // The operator CLI's payment trace shows it too.
    const printed = await cli(world.service, ['payment', 'trace', payment.id]);
    expect(printed.json.attempts[0]).toMatchObject({ gateway: 'gateway_a', orphanRef, reportedPaidAt: marked.reportedPaidAt });
    const read = await call(world.service.url, 'GET', `/v1/payments/${payment.id}`, { key: world.tenant.apiKey });
    expect(read.body).toMatchObject({ status: 'pending', gateway: 'gateway_b', gatewayRef: payment.gatewayRef });
    expect(await eventTypes(payment.id)).toEqual(before);
  });

  it('with the notification lost: reconciliation reads the orphan by itself and marks it, the payment unchanged', async () => {
    const { payment, orphanRef } = await paymentWithOrphan();
    const before = await eventTypes(payment.id);
    sim().setWebhooksEnabled(false);
    try {
      await sim().setPaymentStatus(orphanRef, 'succeeded');
    } finally {
      sim().setWebhooksEnabled(true);
    }
    expect((await trace(payment.id)).attempts[0]!.reportedPaidAt).toBeUndefined();
    const marked = await eventually(async () => {
      const attempt = (await trace(payment.id)).attempts[0]!;
      return attempt.reportedPaidAt !== undefined && attempt;
    }, 15_000, 'the orphan marked paid by reconciliation');
    expect(marked).toMatchObject({ gateway: 'gateway_a', orphanRef, reportedPaidAt: expect.any(String) });
    expect(warnings(payment.id)).toHaveLength(1);
    const read = await call(world.service.url, 'GET', `/v1/payments/${payment.id}`, { key: world.tenant.apiKey });
    expect(read.body).toMatchObject({ status: 'pending', gateway: 'gateway_b' });
    expect(await eventTypes(payment.id)).toEqual(before);
  });
});
