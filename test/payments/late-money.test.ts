/**
 * Late money is looked for (decision 28): a payment that ended without its
 * gateway's word (a Pix expired by our clock, a card canceled by the service)
 * stays on the reconciliation schedule, so a "paid" whose notification was
 * lost is found with no sync call and decision 16 applies; a payment ended by
 * its gateway's word is not read again, and the watch ends after its window.
 * Real service (its clock moved forward), real simulators, a real receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxEvent } from '../../server/db/entities';
import { Payment } from '../../server/domain/payments/payment';
import { call, validPayment } from '../support/http';
import { eventually } from '../support/outbox-events';
import { startReceiver, type Receiver } from '../support/receiver';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';

/** Reads every second or two, late money watched for ten minutes (of the service's clock), read every second then every two. */
const FAST = {
  RECONCILIATION_SCHEDULE: '1s,2s',
  RECONCILIATION_POLL_INTERVAL_MS: '100',
  RECONCILIATION_LATE_SCHEDULE: '1s,2s',
  RECONCILIATION_LATE_WINDOW: '10m',
  RATE_LIMIT_PAYMENTS_CANCEL: '1000',
  WEBHOOK_ALLOW_LOCAL_URLS: 'true',
  WEBHOOK_POLL_INTERVAL_MS: '200',
};

describe('late money is looked for (decision 28)', () => {
  let world: SandboxedService;
  let receiver: Receiver;
  /** How far the service's clock is ahead of the real one: a Pix code's thirty minutes pass in an instant. */
  let ahead = 0;
  beforeAll(async () => {
    world = await startSandboxedService({ env: FAST, routes: { PIX: 'gateway_a', CARD: 'gateway_a' }, now: () => new Date(Date.now() + ahead) });
    receiver = await startReceiver();
    await world.service.admin.webhooks.createEndpoint({ environmentId: world.tenant.environmentId, url: receiver.url('/hooks') });
  });
  afterAll(async () => {
    await receiver?.close();
    await world?.stop();
  });

  const sim = () => world.sandbox.sims.gateway_a;
  const api = (method: 'GET' | 'POST', path: string, body?: unknown) => call(world.service.url, method, path, { key: world.tenant.apiKey, body });
  const stored = (id: string) => world.service.services.db.fork().findOneOrFail(Payment, { id });
  const eventTypes = async (resourceId: string) =>
    (await world.service.services.db.fork().find(OutboxEvent, { resourceId }, { orderBy: { sequence: 'asc' } })).map((e) => e.type);
  const statusBecomes = (id: string, status: string) =>
    eventually(async () => {
      const reply = await api('GET', `/v1/payments/${id}`);
      return reply.body.status === status && reply;
    }, 20_000, `payment ${id} ${status}`);
  const delivered = (id: string, type: string) =>
    eventually(async () => receiver.received.find((d) => d.json?.type === type && d.json?.data?.paymentId === id), 15_000, `${type} of ${id} delivered`);
  const withNotificationsLost = async (act: () => Promise<unknown>) => {
    sim().setWebhooksEnabled(false);
    try {
      await act();
    } finally {
      sim().setWebhooksEnabled(true);
    }
  };
  const lateWarnings = (id: string) =>
    world.service
      .logs()
      .split('\n')
      .filter((line) => line.includes(id) && line.includes('late payment'));

  it('a Pix expired here by the clock, then paid at the gateway with its notification lost, becomes paid by itself with payment.paid delivered', async () => {
    const created = await api('POST', '/v1/payments', validPayment({ method: 'pix' }));
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('pending');
    // The code's expiry passes; the simulator still calls it open, as a gateway late to expire it would.
    ahead = Date.parse(created.body.expiresAt) - Date.now() + 20_000;
    await statusBecomes(created.body.id, 'expired');
    const expired = await stored(created.body.id);
    expect(expired.endedBy).toBe('clock');
    expect(expired.reconcileAt).toBeInstanceOf(Date);
    expect(expired.lateWatchUntil!.getTime()).toBeGreaterThan(Date.now() + ahead + 9 * 60_000);
    await delivered(created.body.id, 'payment.expired');

    await withNotificationsLost(() => sim().payPayment(created.body.gatewayRef));
    const paid = await statusBecomes(created.body.id, 'paid');
    expect(paid.body.paidAt).not.toBeNull();
    expect(await eventTypes(created.body.id)).toEqual(['payment.created', 'payment.pending', 'payment.expired', 'payment.paid']);
    expect((await delivered(created.body.id, 'payment.paid')).json.data).toMatchObject({ paymentId: created.body.id, status: 'paid' });
    expect(lateWarnings(created.body.id)).toHaveLength(1);
    // Nothing is left to look for: it is read no more.
    expect((await stored(created.body.id)).reconcileAt).toBeNull();
  });

  it('a card canceled by the service, then reported paid by the gateway with its notification lost, becomes paid by itself', async () => {
    const created = await api('POST', '/v1/payments', validPayment({ method: 'card' }));
    const canceled = await api('POST', `/v1/payments/${created.body.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.status).toBe('canceled');
    const watched = await stored(created.body.id);
    expect(watched.endedBy).toBe('service');
    expect(watched.reconcileAt).toBeInstanceOf(Date);

    await withNotificationsLost(() => sim().setPaymentStatus(created.body.gatewayRef, 'succeeded'));
    await statusBecomes(created.body.id, 'paid');
    expect(await eventTypes(created.body.id)).toEqual(['payment.created', 'payment.pending', 'payment.canceled', 'payment.paid']);
    await delivered(created.body.id, 'payment.paid');
    expect(lateWarnings(created.body.id)).toHaveLength(1);
  });

  it('a payment ended by its gateway\'s word is not read again', async () => {
    const created = await api('POST', '/v1/payments', validPayment({ method: 'pix' }));
    await sim().expirePayment(created.body.gatewayRef);
    expect((await api('GET', `/v1/payments/${created.body.id}`)).body.status).toBe('expired');
    const ended = await stored(created.body.id);
    expect(ended.endedBy).toBeNull();
    expect(ended.reconcileAt).toBeNull();
  });

  it('the watch ends once its window has passed since the payment ended', async () => {
    const created = await api('POST', '/v1/payments', validPayment({ method: 'card' }));
    expect((await api('POST', `/v1/payments/${created.body.id}/cancel`)).body.status).toBe('canceled');
    const before = await stored(created.body.id);
    ahead += 11 * 60_000;
    const last = await eventually(async () => {
      const payment = await stored(created.body.id);
      return payment.reconcileAt === null && payment;
    }, 15_000, 'the watch to end');
    expect(last.reconcileChecks).toBeGreaterThan(before.reconcileChecks);
    expect(last.reconciledAt!.getTime()).toBeGreaterThanOrEqual(before.lateWatchUntil!.getTime());
    expect(last.status).toBe('canceled');
  });
});
