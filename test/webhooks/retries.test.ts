/**
 * Opt-in automatic delivery retries (decision 23), through a real service and
 * a real receiver: what a merchant's receiver gets, and what the delivery
 * records say. The schedule is shortened (WEBHOOK_RETRY_SCHEDULE) so a whole
 * one runs in about a second.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { WebhookAttempt } from '../../server/db/entities';
import { createTestDatabase, onPostgres, type TestDatabase } from '../support/database';
import { commitPaymentEvents, deliverMarker, eventually, newPaymentId } from '../support/outbox-events';
import { startReceiver, type Answer, type ReceivedDelivery, type Receiver } from '../support/receiver';
import { createEnvironment, newMasterKey, startWebhookService, type WebhookTestService } from '../support/webhook-service';

const SCHEDULE = '300ms,300ms,300ms';
const SCHEDULED_DELAY_MS = 300;

let service: WebhookTestService;
const receivers: Receiver[] = [];

beforeAll(async () => {
  service = await startWebhookService({ env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true', WEBHOOK_POLL_INTERVAL_MS: '50', WEBHOOK_RETRY_SCHEDULE: SCHEDULE } });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await service?.stop();
});

/** A receiver answering the n-th request (1-based) as `answers(n)` says. */
async function receiverAnswering(answers: (n: number, delivery: ReceivedDelivery) => Answer): Promise<Receiver> {
  const receiver = await startReceiver();
  receivers.push(receiver);
  let n = 0;
  receiver.answer((delivery) => answers(++n, delivery));
  return receiver;
}

/** A fresh environment with one endpoint at the receiver (retries as asked) and one committed payment.created event. */
async function oneDelivery(on: WebhookTestService, receiver: Receiver, retries: boolean) {
  const { environmentId } = await createEnvironment(on);
  const endpoint = await on.admin.webhooks.createEndpoint({ environmentId, url: receiver.url(), retries });
  expect(endpoint.retries).toBe(retries);
  await commitPaymentEvents(on, environmentId, newPaymentId(), ['created']);
  return { environmentId, endpoint, deliveryId: await firstDeliveryId(on, endpoint.id) };
}

/** The id of the endpoint's delivery, once fanned out. */
async function firstDeliveryId(on: WebhookTestService, endpointId: string): Promise<string> {
  const delivery = await eventually(async () => (await on.admin.webhooks.listDeliveries({ endpointId })).items[0]);
  return delivery.id;
}

const finished = (on: WebhookTestService, deliveryId: string, timeoutMs = 15_000) =>
  eventually(async () => {
    const detail = await on.admin.webhooks.getDelivery({ deliveryId });
    return detail.status !== 'PENDING' ? detail : undefined;
  }, timeoutMs, `delivery ${deliveryId} to finish`);

/**
 * Proof that a delivery whose outcome is recorded gets no further automatic
 * attempt: once the time a retry would be due has passed (its outcome was
 * recorded before this was called, so at most one scheduled delay from now),
 * a later event is committed to the same endpoint and its first attempt made.
 * The dispatcher claims an endpoint's oldest due delivery first, so a retry
 * would have gone before it. Answers the marker event's id.
 */
async function noFurtherAttempt(on: WebhookTestService, environmentId: string, endpointId: string): Promise<string> {
  const wouldBeDue = Date.now() + SCHEDULED_DELAY_MS;
  await eventually(async () => Date.now() > wouldBeDue, 5_000, 'the time a retry would be due');
  const [marker] = await commitPaymentEvents(on, environmentId, newPaymentId(), ['created']);
  await eventually(async () => {
    const items = (await on.admin.webhooks.listDeliveries({ endpointId })).items;
    return items.some((d) => d.eventId === marker!.id && d.attempts >= 1 && d.lastAttemptAt && (d.status !== 'PENDING' || d.nextAttemptAt));
  }, 15_000, 'the marker event attempted');
  return marker!.id;
}

/** Every request carried the same bytes: body, timestamp, signature, delivery id and event id. */
function expectSameBytes(received: ReceivedDelivery[]) {
  const [first, ...rest] = received;
  for (const again of rest) {
    expect(again.raw).toBe(first!.raw);
    for (const header of ['x-service-timestamp', 'x-service-signature', 'x-service-delivery-id', 'x-service-event']) {
      expect(again.headers[header], header).toBe(first!.headers[header]);
    }
  }
  expect(new Set(received.map((r) => r.json.id)).size).toBe(1);
}

describe('automatic retries, opt-in per endpoint', () => {
  it('an endpoint with retries on that answers 503 three times, then 204, gets the same bytes four times and the delivery ends SENT', async () => {
    const receiver = await receiverAnswering((n) => (n <= 3 ? { status: 503, body: 'busy' } : { status: 204 }));
    const { environmentId, deliveryId } = await oneDelivery(service, receiver, true);

    // After the first 503 the delivery waits, PENDING, with the time of its next attempt.
    const waiting = await eventually(async () => {
      const detail = await service.admin.webhooks.getDelivery({ deliveryId });
      return detail.attempts >= 1 && detail.attemptHistory[0]?.outcome ? detail : undefined;
    });
    expect(waiting).toMatchObject({ status: 'PENDING', lastResponseStatus: 503 });
    expect(waiting.nextAttemptAt).not.toBeNull();

    const detail = await finished(service, deliveryId);
    expect(detail).toMatchObject({ status: 'SENT', attempts: 4, lastResponseStatus: 204, nextAttemptAt: null });
    expect(detail.attemptHistory.map((a) => [a.number, a.trigger, a.outcome, a.responseStatus])).toEqual([
      [1, 'dispatch', 'FAILED', 503],
      [2, 'retry', 'FAILED', 503],
      [3, 'retry', 'FAILED', 503],
      [4, 'retry', 'SENT', 204],
    ]);
    expect(receiver.received).toHaveLength(4);
    expectSameBytes(receiver.received);
    expect(receiver.received[0]!.raw).toBe(detail.body);
    // Each retry waited its scheduled delay after the failure before it.
    for (let i = 1; i < 4; i++) expect(receiver.received[i]!.at - receiver.received[i - 1]!.at).toBeGreaterThanOrEqual(SCHEDULED_DELAY_MS - 20);

    // Nothing after SENT: a later event's delivery reaches the receiver next.
    const marker = await deliverMarker(service, environmentId, receiver);
    expect(receiver.received).toHaveLength(5);
    expect(receiver.received[4]!.json.id).toBe(marker);
  });

  it('an endpoint without retries (the default) ends FAILED after one attempt, as spec 6.6 says', async () => {
    const receiver = await receiverAnswering(() => ({ status: 503 }));
    const { environmentId } = await createEnvironment(service);
    const endpoint = await service.admin.webhooks.createEndpoint({ environmentId, url: receiver.url() });
    expect(endpoint.retries).toBe(false);
    await commitPaymentEvents(service, environmentId, newPaymentId(), ['created']);
    const listed = { id: await firstDeliveryId(service, endpoint.id) };
    const detail = await finished(service, listed.id);
    expect(detail).toMatchObject({ status: 'FAILED', attempts: 1, lastResponseStatus: 503, nextAttemptAt: null });
    const marker = await noFurtherAttempt(service, environmentId, endpoint.id);
    expect(receiver.received.map((r) => r.json.id)).toEqual([receiver.received[0]!.json.id, marker]);
    expect((await service.admin.webhooks.getDelivery({ deliveryId: listed.id })).attemptHistory).toHaveLength(1);
  });

  it('a 4xx with retries on is FAILED after one attempt: the receiver refused it for good', async () => {
    const receiver = await receiverAnswering(() => ({ status: 422, body: 'unknown payment' }));
    const { environmentId, endpoint, deliveryId } = await oneDelivery(service, receiver, true);
    const detail = await finished(service, deliveryId);
    expect(detail).toMatchObject({ status: 'FAILED', attempts: 1, lastResponseStatus: 422, nextAttemptAt: null });
    const marker = await noFurtherAttempt(service, environmentId, endpoint.id);
    expect(receiver.received.map((r) => r.json.id)).toEqual([receiver.received[0]!.json.id, marker]);
  });

  it('a timeout or network error is retried too; after the last scheduled attempt the delivery is FAILED', async () => {
    // Nobody listens at this port: every attempt is a network error.
    const closed = await startReceiver();
    const url = closed.url();
    await closed.close();
    const { environmentId } = await createEnvironment(service);
    const endpoint = await service.admin.webhooks.createEndpoint({ environmentId, url, retries: true });
    await commitPaymentEvents(service, environmentId, newPaymentId(), ['created']);
    const listed = { id: await firstDeliveryId(service, endpoint.id) };
    const detail = await finished(service, listed.id);
    // One first attempt and one per scheduled delay, then no more.
    expect(detail).toMatchObject({ status: 'FAILED', attempts: 4, nextAttemptAt: null });
    expect(detail.attemptHistory.map((a) => a.trigger)).toEqual(['dispatch', 'retry', 'retry', 'retry']);
    expect(detail.attemptHistory.every((a) => a.outcome === 'FAILED' && /^network error: .*ECONNREFUSED/.test(a.error ?? ''))).toBe(true);
    await noFurtherAttempt(service, environmentId, endpoint.id);
    expect((await service.admin.webhooks.getDelivery({ deliveryId: listed.id })).attempts).toBe(4);
  });

  it('a 5xx on every attempt: four identical requests, then FAILED', async () => {
    const receiver = await receiverAnswering(() => ({ status: 500 }));
    const { deliveryId } = await oneDelivery(service, receiver, true);
    const detail = await finished(service, deliveryId);
    expect(detail).toMatchObject({ status: 'FAILED', attempts: 4, lastResponseStatus: 500 });
    expect(receiver.received).toHaveLength(4);
    expectSameBytes(receiver.received);
    // Still resendable by hand once it is FAILED.
    receiver.answer({ status: 200 });
    expect(await service.admin.webhooks.resend({ deliveryId })).toMatchObject({ status: 'SENT', attempts: 5 });
    expectSameBytes(receiver.received);
  });

  it('turning retries on for an endpoint applies to its next failures', async () => {
    const receiver = await receiverAnswering((n) => (n === 1 ? { status: 502 } : { status: 200 }));
    const { environmentId } = await createEnvironment(service);
    const endpoint = await service.admin.webhooks.createEndpoint({ environmentId, url: receiver.url() });
    const updated = await service.admin.webhooks.updateEndpoint({ endpointId: endpoint.id, retries: true });
    expect(updated.retries).toBe(true);
    expect((await service.admin.webhooks.listEndpoints({ environmentId }))[0]!.retries).toBe(true);
    await commitPaymentEvents(service, environmentId, newPaymentId(), ['created']);
    const listed = { id: await firstDeliveryId(service, endpoint.id) };
    expect(await finished(service, listed.id)).toMatchObject({ status: 'SENT', attempts: 2 });
  });
});

describe('a delivery waiting for its retry (a one-hour schedule)', () => {
  let slow: WebhookTestService;
  beforeAll(async () => {
    slow = await startWebhookService({ env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true', WEBHOOK_POLL_INTERVAL_MS: '50', WEBHOOK_RETRY_SCHEDULE: '1h,1h' } });
  });
  afterAll(() => slow?.stop());

  it('can be resent by hand at any time: a failing resend leaves it waiting, a successful one ends it SENT, same bytes', async () => {
    const receiver = await receiverAnswering((n) => (n <= 2 ? { status: 503 } : { status: 200, body: 'thanks' }));
    const { deliveryId } = await oneDelivery(slow, receiver, true);
    const waiting = await eventually(async () => {
      const detail = await slow.admin.webhooks.getDelivery({ deliveryId });
      return detail.attemptHistory[0]?.outcome ? detail : undefined;
    });
    expect(waiting).toMatchObject({ status: 'PENDING', attempts: 1 });
    const due = Date.parse(waiting.nextAttemptAt!);
    expect(due - Date.now()).toBeGreaterThan(55 * 60_000);

    // A resend that fails the same way spends no step of the schedule.
    const failedAgain = await slow.admin.webhooks.resend({ deliveryId });
    expect(failedAgain).toMatchObject({ status: 'PENDING', attempts: 2, lastResponseStatus: 503, nextAttemptAt: waiting.nextAttemptAt });

    const sent = await slow.admin.webhooks.resend({ deliveryId });
    expect(sent).toMatchObject({ status: 'SENT', attempts: 3, lastResponseStatus: 200, nextAttemptAt: null });
    expect(sent.attemptHistory.map((a) => [a.trigger, a.outcome])).toEqual([
      ['dispatch', 'FAILED'],
      ['resend', 'FAILED'],
      ['resend', 'SENT'],
    ]);
    expect(receiver.received).toHaveLength(3);
    expectSameBytes(receiver.received);
  });

  it("does not hold the endpoint's later deliveries back: they are delivered while it waits", async () => {
    // The first event's delivery fails; every later request succeeds.
    const receiver = await receiverAnswering((n) => (n === 1 ? { status: 500 } : { status: 204 }));
    const { environmentId } = await createEnvironment(slow);
    const endpoint = await slow.admin.webhooks.createEndpoint({ environmentId, url: receiver.url(), retries: true });
    const paymentId = newPaymentId();
    await commitPaymentEvents(slow, environmentId, paymentId, ['created']);
    await receiver.waitFor(1);
    await commitPaymentEvents(slow, environmentId, paymentId, ['pending']);
    await receiver.waitFor(2);
    expect(receiver.received.map((r) => r.json.type)).toEqual(['payment.created', 'payment.pending']);
    const deliveries = await eventually(async () => {
      const items = (await slow.admin.webhooks.listDeliveries({ endpointId: endpoint.id })).items;
      return items.length === 2 && items.every((d) => d.attempts === 1 && d.lastAttemptAt && (d.status !== 'PENDING' || d.nextAttemptAt)) ? items : undefined;
    });
    expect(deliveries.map((d) => [d.eventType, d.status])).toEqual([
      ['payment.pending', 'SENT'],
      ['payment.created', 'PENDING'],
    ]);
  });
});

describe.runIf(onPostgres)('two service instances retrying on one PostgreSQL database', () => {
  let database: TestDatabase;
  let a: WebhookTestService;
  let b: WebhookTestService;

  beforeAll(async () => {
    database = await createTestDatabase();
    const env = { MASTER_KEY: newMasterKey(), WEBHOOK_ALLOW_LOCAL_URLS: 'true', WEBHOOK_POLL_INTERVAL_MS: '50', WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms' };
    a = await startWebhookService({ database, env });
    b = await startWebhookService({ database, env });
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await database?.drop();
  });

  it('never attempt one retry twice: each event reaches its receiver exactly four times, attempts numbered 1 to 4', async () => {
    // Each delivery's (event to endpoint) first three requests are answered 503, its fourth 204.
    const seen = new Map<string, number>();
    const receiver = await receiverAnswering((_, delivery) => {
      const key = String(delivery.headers['x-service-delivery-id']);
      const n = (seen.get(key) ?? 0) + 1;
      seen.set(key, n);
      return n <= 3 ? { status: 503 } : { status: 204 };
    });
    const { environmentId } = await createEnvironment(a);
    await a.admin.webhooks.createEndpoint({ environmentId, url: receiver.url('/first'), retries: true });
    await b.admin.webhooks.createEndpoint({ environmentId, url: receiver.url('/second'), retries: true });
    for (let i = 0; i < 10; i++) await commitPaymentEvents(i % 2 === 0 ? a : b, environmentId, newPaymentId(), ['created', 'pending']);

    // 20 events to 2 endpoints, 4 requests each.
    await receiver.waitFor(160, 60_000);
    // Nothing more on its way: a later event reaches both endpoints next (each claims its oldest due delivery first).
    const [marker] = await commitPaymentEvents(a, environmentId, newPaymentId(), ['created']);
    await eventually(async () => receiver.received.filter((r) => r.json.id === marker!.id).length >= 2, 15_000, 'the marker event at both endpoints');
    const received = receiver.received.slice(0, 160);
    expect(receiver.received.slice(160).every((r) => r.json.id === marker!.id)).toBe(true);
    const perDelivery = new Map<string, ReceivedDelivery[]>();
    for (const r of received) {
      const id = String(r.headers['x-service-delivery-id']);
      perDelivery.set(id, [...(perDelivery.get(id) ?? []), r]);
    }
    expect(perDelivery.size).toBe(40);
    for (const requests of perDelivery.values()) {
      expect(requests).toHaveLength(4);
      expectSameBytes(requests);
    }
    const em = a.services.db.fork();
    const attempts = await em.find(WebhookAttempt, { delivery: { environment: environmentId, event: { $ne: marker!.id } } }, { orderBy: { delivery: 'asc', number: 'asc' } });
    expect(attempts).toHaveLength(160);
    expect(attempts.every((attempt) => attempt.outcome === (attempt.number === 4 ? 'SENT' : 'FAILED'))).toBe(true);
    const listed = (await a.admin.webhooks.listDeliveries({ environmentId, limit: 100 })).items.filter((d) => d.eventId !== marker!.id);
    expect(listed).toHaveLength(40);
    expect(listed.every((d) => d.status === 'SENT' && d.attempts === 4)).toBe(true);
  }, 120_000);
});

describe('WEBHOOK_RETRY_SCHEDULE', () => {
  it('defaults to about 1 min, 5 min, 30 min, 2 h, 8 h, 24 h, and refuses what is not a list of durations', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).webhooks.retryScheduleMs).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 28_800_000, 86_400_000]);
    expect(loadConfig({ NODE_ENV: 'test', WEBHOOK_RETRY_SCHEDULE: '500ms, 2s' }).webhooks.retryScheduleMs).toEqual([500, 2_000]);
    for (const wrong of ['', '1m,soon', '10ms', '8d']) {
      expect(() => loadConfig({ NODE_ENV: 'test', WEBHOOK_RETRY_SCHEDULE: wrong }), wrong).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    }
  });
});
