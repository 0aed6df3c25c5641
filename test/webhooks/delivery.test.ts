import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../support/cli';
import { commitPaymentEvents, eventually, newPaymentId, paymentEventData } from '../support/outbox-events';
import { startReceiver, type ReceivedDelivery, type Receiver } from '../support/receiver';
import { createEnvironment, startWebhookService, type WebhookTestService } from '../support/webhook-service';

let service: WebhookTestService;
let environmentId: string;
const receivers: Receiver[] = [];

beforeAll(async () => {
  service = await startWebhookService({ env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true' } });
  ({ environmentId } = await createEnvironment(service));
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await service?.stop();
});

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

/** What a merchant's receiver does (docs/api.md, "Receiving webhooks"): HMAC over `<timestamp>.<raw body>`, constant-time compare. */
function verifies(delivery: ReceivedDelivery, secret: string): boolean {
  const timestamp = String(delivery.headers['x-service-timestamp']);
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(`${timestamp}.${delivery.raw}`).digest('hex')}`);
  const presented = Buffer.from(String(delivery.headers['x-service-signature']));
  return expected.length === presented.length && timingSafeEqual(expected, presented);
}

describe('delivery to a registered endpoint', () => {
  it('delivers committed payment events in order, signed, with the documented headers and envelope', async () => {
    const r = await receiver();
    const endpoint = await service.admin.webhooks.createEndpoint({ environmentId, url: r.url() });
    expect(endpoint.secret).toMatch(/^whsec_[0-9a-z]{40}$/);
    expect(endpoint).toMatchObject({ id: expect.stringMatching(/^whe_/), environmentId, enabled: true, enabledEvents: [] });

    const paymentId = newPaymentId();
    const events = await commitPaymentEvents(service, environmentId, paymentId, ['created', 'pending', 'paid']);
    const received = await r.waitFor(3);

    expect(received.map((d) => d.json.type)).toEqual(['payment.created', 'payment.pending', 'payment.paid']);
    expect(received.map((d) => d.json.id)).toEqual(events.map((e) => e.id));
    const now = Math.floor(Date.now() / 1000);
    for (const [i, delivery] of received.entries()) {
      const event = events[i]!;
      expect(delivery.json).toEqual({ id: event.id, type: event.type, createdAt: event.createdAt.toISOString(), data: paymentEventData(paymentId, event.type.split('.')[1]!) });
      expect(Object.keys(delivery.json)).toEqual(['id', 'type', 'createdAt', 'data']);
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(delivery.headers['user-agent']).toBe('service-payments-webhooks/1.0');
      expect(delivery.headers['x-service-event']).toBe(event.type);
      expect(delivery.headers['x-service-delivery-id']).toMatch(/^wd_[0-9a-z]{24}$/);
      expect(delivery.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
      const timestamp = Number(delivery.headers['x-service-timestamp']);
      expect(Number.isInteger(timestamp) && Math.abs(now - timestamp) < 300).toBe(true);
      expect(verifies(delivery, endpoint.secret)).toBe(true);
      expect(verifies(delivery, `${endpoint.secret}x`)).toBe(false);
    }
    expect(new Set(received.map((d) => d.headers['x-service-delivery-id'])).size).toBe(3);

    const deliveries = await eventually(async () => {
      const list = (await service.admin.webhooks.listDeliveries({ endpointId: endpoint.id })).items;
      return list.every((d) => d.status === 'SENT') && list.length === 3 ? list : undefined;
    });
    expect(deliveries.map((d) => d.eventType)).toEqual(['payment.paid', 'payment.pending', 'payment.created']);
    expect(deliveries.every((d) => d.attempts === 1 && d.lastResponseStatus === 200)).toBe(true);
  });

  it('filters by enabledEvents, sends nothing to a disabled endpoint, and keeps environments apart', async () => {
    const all = await receiver();
    const paidOnly = await receiver();
    const disabled = await receiver();
    const elsewhere = await receiver();
    await service.admin.webhooks.createEndpoint({ environmentId, url: all.url() });
    const filtered = await service.admin.webhooks.createEndpoint({ environmentId, url: paidOnly.url(), enabledEvents: ['payment.paid', 'payment.failed'] });
    expect(filtered.enabledEvents).toEqual(['payment.failed', 'payment.paid']);
    const off = await service.admin.webhooks.createEndpoint({ environmentId, url: disabled.url(), enabled: false });
    const other = await createEnvironment(service);
    await service.admin.webhooks.createEndpoint({ environmentId: other.environmentId, url: elsewhere.url() });

    const paymentId = newPaymentId();
    await commitPaymentEvents(service, environmentId, paymentId, ['created', 'pending', 'paid']);
    await all.waitFor(3);
    const [paid] = await paidOnly.waitFor(1);
    expect(paid!.json.type).toBe('payment.paid');
    // Fan-out creates every endpoint's deliveries of an event together: once the others have theirs, there is nothing more to come.
    await eventually(async () => ((await service.admin.webhooks.listDeliveries({ environmentId })).items).filter((d) => d.status !== 'PENDING').length >= 4);
    expect(paidOnly.received).toHaveLength(1);
    expect(disabled.received).toHaveLength(0);
    expect(elsewhere.received).toHaveLength(0);
    expect((await service.admin.webhooks.listDeliveries({ endpointId: off.id })).items).toEqual([]);

    // Enabled again (and opened to every type), it receives what is committed from then on.
    await service.admin.webhooks.updateEndpoint({ endpointId: off.id, enabled: true });
    await service.admin.webhooks.updateEndpoint({ endpointId: filtered.id, enabledEvents: [] });
    await commitPaymentEvents(service, environmentId, newPaymentId(), ['created']);
    const [late] = await disabled.waitFor(1);
    expect(late!.json.type).toBe('payment.created');
    expect((await paidOnly.waitFor(2))[1]!.json.type).toBe('payment.created');
  });

  it('signs with the new secret only after a rotation without overlap, which shows the new secret once', async () => {
    const r = await receiver();
    const endpoint = await service.admin.webhooks.createEndpoint({ environmentId, url: r.url() });
    const rotated = await service.admin.webhooks.rotateSecret({ endpointId: endpoint.id, keepPreviousFor: 'now' });
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(rotated.secretRotatedAt).not.toBeNull();
    const listed = await service.admin.webhooks.listEndpoints({ environmentId });
    expect(JSON.stringify(listed)).not.toContain(rotated.secret);
    expect(JSON.stringify(listed)).not.toContain(endpoint.secret);

    await commitPaymentEvents(service, environmentId, newPaymentId(), ['created']);
    const [delivery] = await r.waitFor(1);
    expect(verifies(delivery!, rotated.secret)).toBe(true);
    expect(verifies(delivery!, endpoint.secret)).toBe(false);
  });

  it('is managed with the operator CLI: create (secret printed once), list, update, deliveries', async () => {
    const r = await receiver();
    const target = service;
    const created = await cli(target, ['webhook', 'endpoint', 'create', r.url('/cli'), '--env', environmentId, '--events', 'payment.paid']);
    expect(created.code).toBe(0);
    expect(created.json).toMatchObject({ id: expect.stringMatching(/^whe_/), url: r.url('/cli'), enabledEvents: ['payment.paid'], secret: expect.stringMatching(/^whsec_/) });

    const listed = await cli(target, ['webhook', 'endpoint', 'list', '--env', environmentId]);
    expect(listed.json.map((e: { id: string }) => e.id)).toContain(created.json.id);
    expect(listed.stdout).not.toContain(created.json.secret);

    const unknownType = await cli(target, ['webhook', 'endpoint', 'create', r.url(), '--env', environmentId, '--events', 'payment.refunded']);
    expect(unknownType.code).not.toBe(0);
    expect(unknownType.stderr).toContain('payment.refunded');

    await commitPaymentEvents(service, environmentId, newPaymentId(), ['created', 'paid']);
    const [delivery] = await r.waitFor(1);
    expect(verifies(delivery!, created.json.secret)).toBe(true);
    const deliveries = await eventually(async () => {
      const reply = await cli(target, ['webhook', 'delivery', 'list', '--endpoint', created.json.id, '--status', 'SENT']);
      return reply.json?.length === 1 ? reply.json : undefined;
    });
    expect(deliveries[0]).toMatchObject({ id: delivery!.headers['x-service-delivery-id'], eventType: 'payment.paid', status: 'SENT', attempts: 1 });

    const disabled = await cli(target, ['webhook', 'endpoint', 'update', created.json.id, '--disable']);
    expect(disabled.json.enabled).toBe(false);
  });
});
