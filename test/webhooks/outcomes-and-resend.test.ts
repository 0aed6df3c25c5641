import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../support/cli';
import { commitPaymentEvents, deliverMarker, eventually, newPaymentId } from '../support/outbox-events';
import { startReceiver, type Receiver } from '../support/receiver';
import { createEnvironment, startWebhookService, type WebhookTestService } from '../support/webhook-service';

let service: WebhookTestService;
const receivers: Receiver[] = [];

// The real 8 s delivery timeout (the default); polling fast so a retry, if there were one, would show quickly.
beforeAll(async () => {
  service = await startWebhookService({ env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true', WEBHOOK_POLL_INTERVAL_MS: '100' } });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await service?.stop();
});

/** A fresh environment with one endpoint at a receiver answering as told, and one committed payment.created event. */
async function deliverOnce(answer: Parameters<Receiver['answer']>[0]) {
  const receiver = await startReceiver();
  receivers.push(receiver);
  receiver.answer(answer);
  const { environmentId } = await createEnvironment(service);
  const endpoint = await service.admin.webhooks.createEndpoint({ environmentId, url: receiver.url() });
  await commitPaymentEvents(service, environmentId, newPaymentId(), ['created']);
  const [delivery] = await eventually(async () => {
    const list = (await service.admin.webhooks.listDeliveries({ endpointId: endpoint.id })).items;
    return list[0] && list[0].status !== 'PENDING' ? list : undefined;
  }, 20_000);
  return { receiver, environmentId, endpoint, delivery: delivery!, detail: await service.admin.webhooks.getDelivery({ deliveryId: delivery!.id }) };
}

describe('delivery outcomes', () => {
  it.each([
    [500, 'Internal Server Error'],
    [503, 'down for maintenance'],
    [404, 'no such hook'],
    [410, 'gone'],
    [400, 'bad signature'],
  ])('an answer %i marks the delivery FAILED, keeps status and body excerpt, and is not retried', async (status, body) => {
    const { receiver, environmentId, delivery, detail } = await deliverOnce({ status, body });
    expect(delivery).toMatchObject({ status: 'FAILED', attempts: 1, lastResponseStatus: status });
    expect(detail.attemptHistory).toEqual([
      expect.objectContaining({ number: 1, trigger: 'dispatch', outcome: 'FAILED', responseStatus: status, responseExcerpt: body, error: `receiver answered ${status}` }),
    ]);
    // A later event's delivery reaches the receiver next: the failed one was not attempted again.
    const marker = await deliverMarker(service, environmentId, receiver);
    expect(receiver.received.map((d) => d.json.id)).toEqual([receiver.received[0]!.json.id, marker]);
    expect((await service.admin.webhooks.getDelivery({ deliveryId: delivery.id })).attemptHistory).toHaveLength(1);
  });

  it('does not follow a redirect', async () => {
    const target = await startReceiver();
    receivers.push(target);
    const { delivery, detail } = await deliverOnce({ status: 307, headers: { location: target.url('/elsewhere') } });
    expect(delivery).toMatchObject({ status: 'FAILED', lastResponseStatus: 307 });
    expect(detail.attemptHistory[0]!.error).toBe('receiver answered 307');
    // A followed redirect would have reached the target before the attempt's outcome was recorded.
    expect(target.received).toHaveLength(0);
  });

  it('keeps at most 1 KiB of a long answer, and a 2xx with any body is SENT', async () => {
    const { delivery, detail } = await deliverOnce({ status: 202, body: 'x'.repeat(100_000) });
    expect(delivery.status).toBe('SENT');
    expect(detail.attemptHistory[0]!.responseExcerpt).toBe('x'.repeat(1024));
  });

  it('a network failure marks the delivery FAILED', async () => {
    const closed = await startReceiver();
    const url = closed.url();
    await closed.close();
    const { environmentId } = await createEnvironment(service);
    const endpoint = await service.admin.webhooks.createEndpoint({ environmentId, url });
    await commitPaymentEvents(service, environmentId, newPaymentId(), ['created']);
    const [delivery] = await eventually(async () => {
      const list = (await service.admin.webhooks.listDeliveries({ endpointId: endpoint.id })).items;
      return list[0] && list[0].status !== 'PENDING' ? list : undefined;
    });
    expect(delivery).toMatchObject({ status: 'FAILED', lastResponseStatus: null, lastError: expect.stringMatching(/^network error: .*ECONNREFUSED/) });
  });

  it('a receiver that answers after 9 s: FAILED at the 8 s timeout, before its answer arrives', async () => {
    const { receiver, delivery, detail } = await deliverOnce({ status: 200, body: 'too late', delayMs: 9_000 });
    // The outcome was recorded before the receiver's (too late) answer was due.
    expect(Date.now()).toBeLessThan(receiver.received[0]!.at + 9_000);
    expect(delivery).toMatchObject({ status: 'FAILED', lastResponseStatus: null, lastError: 'timed out after 8000 ms' });
    expect(detail.attemptHistory[0]!.durationMs).toBeGreaterThanOrEqual(7_900);
    expect(receiver.received).toHaveLength(1);
  }, 30_000);
});

describe('manual resend', () => {
  it('re-sends a FAILED delivery with the identical body, timestamp, signature and delivery id, as a new attempt (CLI)', async () => {
    const { receiver, delivery } = await deliverOnce({ status: 500, body: 'oops' });
    const first = receiver.received[0]!;
    receiver.answer({ status: 200, body: 'thanks' });

    const target = service;
    const failed = await cli(target, ['webhook', 'delivery', 'list', '--status', 'FAILED', '--event-type', 'payment.created', '--endpoint', delivery.endpointId]);
    expect(failed.json.map((d: { id: string }) => d.id)).toEqual([delivery.id]);

    // A resend made in a later second of the clock must still carry the original timestamp.
    await eventually(async () => Math.floor(Date.now() / 1000) > Number(first.headers['x-service-timestamp']), 5_000, 'a later second');
    const resent = await cli(target, ['webhook', 'delivery', 'resend', delivery.id]);
    expect(resent.code).toBe(0);
    expect(resent.json).toMatchObject({ id: delivery.id, status: 'SENT', attempts: 2 });
    expect(resent.json.attemptHistory).toEqual([
      expect.objectContaining({ number: 1, trigger: 'dispatch', outcome: 'FAILED', responseStatus: 500 }),
      expect.objectContaining({ number: 2, trigger: 'resend', outcome: 'SENT', responseStatus: 200, responseExcerpt: 'thanks' }),
    ]);

    const second = receiver.received[1]!;
    expect(receiver.received).toHaveLength(2);
    expect(second.raw).toBe(first.raw);
    for (const header of ['x-service-timestamp', 'x-service-signature', 'x-service-delivery-id', 'x-service-event', 'content-type', 'user-agent']) {
      expect(second.headers[header], header).toBe(first.headers[header]);
    }
    expect(resent.json.body).toBe(first.raw);
    expect(resent.json.signature).toBe(first.headers['x-service-signature']);
    expect(String(resent.json.timestamp)).toBe(first.headers['x-service-timestamp']);
  });

  it('re-sends a SENT delivery too, unchanged even after the secret was rotated; refuses unknown ids and disabled endpoints', async () => {
    const { receiver, endpoint, delivery } = await deliverOnce({ status: 200 });
    await service.admin.webhooks.rotateSecret({ endpointId: endpoint.id });
    const again = await service.admin.webhooks.resend({ deliveryId: delivery.id });
    expect(again).toMatchObject({ status: 'SENT', attempts: 2 });
    expect(receiver.received[1]!.raw).toBe(receiver.received[0]!.raw);
    expect(receiver.received[1]!.headers['x-service-signature']).toBe(receiver.received[0]!.headers['x-service-signature']);

    const missing = await cli(service, ['webhook', 'delivery', 'resend', 'wd_doesnotexist']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('wd_doesnotexist');

    await service.admin.webhooks.updateEndpoint({ endpointId: endpoint.id, enabled: false });
    await expect(service.admin.webhooks.resend({ deliveryId: delivery.id })).rejects.toThrow(/disabled/);
    expect(receiver.received).toHaveLength(2);
  });

  it('a resend that fails again is recorded as another FAILED attempt, and the delivery can be resent later', async () => {
    const { receiver, delivery } = await deliverOnce({ status: 502 });
    const failedAgain = await service.admin.webhooks.resend({ deliveryId: delivery.id });
    expect(failedAgain).toMatchObject({ status: 'FAILED', attempts: 2, lastResponseStatus: 502 });
    receiver.answer({ status: 204 });
    const sent = await service.admin.webhooks.resend({ deliveryId: delivery.id });
    expect(sent.attemptHistory.map((a) => [a.trigger, a.outcome, a.responseStatus])).toEqual([
      ['dispatch', 'FAILED', 502],
      ['resend', 'FAILED', 502],
      ['resend', 'SENT', 204],
    ]);
    expect(new Set(receiver.received.map((r) => r.raw)).size).toBe(1);
  });
});
