/**
 * Rotating an endpoint's signing secret with an overlap, over real HTTP: a
 * receiver verifies deliveries the way the README tells merchants to (the
 * one `sha256=` value matching any secret it holds), and answers 400 when
 * none does, so a refused delivery shows as FAILED. Every delivery carries
 * exactly one signature, as the contract fixes the header.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../support/cli';
import { commitPaymentEvents, eventually, newPaymentId } from '../support/outbox-events';
import { startReceiver, type ReceivedDelivery, type Receiver } from '../support/receiver';
import { createEnvironment, startWebhookService, type WebhookTestService } from '../support/webhook-service';

let service: WebhookTestService;
let environmentId: string;
const receivers: Receiver[] = [];
/** The service's clock runs this far ahead of the real one: overlaps end without waiting. */
let clockAheadMs = 0;
const HOUR_MS = 3600_000;

beforeAll(async () => {
  service = await startWebhookService({ env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true' }, now: () => new Date(Date.now() + clockAheadMs) });
  ({ environmentId } = await createEnvironment(service));
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await service?.stop();
});

/** The README's receiver: HMAC over `<timestamp>.<raw body>`, compared in constant time with each value of the header. */
function verifies(delivery: ReceivedDelivery, secrets: readonly string[]): boolean {
  const timestamp = String(delivery.headers['x-service-timestamp']);
  const values = String(delivery.headers['x-service-signature'] ?? '').split(',').map((v) => Buffer.from(v.trim()));
  let ok = false;
  for (const secret of secrets) {
    const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(`${timestamp}.${delivery.raw}`).digest('hex')}`);
    for (const value of values) if (value.length === expected.length && timingSafeEqual(value, expected)) ok = true;
  }
  return ok;
}

/** A receiver holding `secrets()` (which the test changes as a merchant would); 204 when verified, 400 otherwise. */
async function merchant(secrets: () => readonly string[]): Promise<Receiver> {
  const r = await startReceiver();
  r.answer((delivery) => (verifies(delivery, secrets()) ? { status: 204 } : { status: 400, body: 'bad signature' }));
  receivers.push(r);
  return r;
}

const fingerprint = (secret: string) => createHash('sha256').update(secret).digest('hex').slice(0, 12);

/** Commits one event and waits for its delivery's outcome at this endpoint. */
async function deliverOne(endpointId: string) {
  const [event] = await commitPaymentEvents(service, environmentId, newPaymentId(), ['created']);
  return eventually(async () => {
    const [delivery] = (await service.admin.webhooks.listDeliveries({ endpointId, eventId: event!.id })).items;
    return delivery && delivery.status !== 'PENDING' ? delivery : undefined;
  });
}

describe('rotating a signing secret with an overlap', () => {
  it('keeps signing with the old secret alone until the overlap ends, then with the new one alone', async () => {
    clockAheadMs = 0;
    let held: string[] = [];
    const r = await merchant(() => held);
    const endpoint = await service.admin.webhooks.createEndpoint({ environmentId, url: r.url() });
    held = [endpoint.secret];
    expect(endpoint.secretFingerprint).toBe(fingerprint(endpoint.secret));
    expect(endpoint.previousSecret).toBeNull();

    const rotated = await service.admin.webhooks.rotateSecret({ endpointId: endpoint.id });
    expect(rotated.secret).toMatch(/^whsec_[0-9a-z]{40}$/);
    expect(rotated.secretFingerprint).toBe(fingerprint(rotated.secret));
    const expiresAt = Date.parse(rotated.previousSecret!.expiresAt);
    expect(rotated.previousSecret!.fingerprint).toBe(fingerprint(endpoint.secret));
    expect(Math.abs(expiresAt - Date.now() - 24 * HOUR_MS)).toBeLessThan(60_000);

    // During the overlap: one signature, by the old secret; the receiver that holds only the old secret accepts.
    const during = await deliverOne(endpoint.id);
    expect(during).toMatchObject({ status: 'SENT', lastResponseStatus: 204, signedWith: [fingerprint(endpoint.secret)] });
    const [first] = r.received;
    expect(first!.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifies(first!, [endpoint.secret])).toBe(true);
    expect(verifies(first!, [rotated.secret])).toBe(false);

    const detail = await service.admin.webhooks.getDelivery({ deliveryId: during.id });
    expect(detail.signature).toBe(first!.headers['x-service-signature']);
    expect(detail.signedWith).toEqual(during.signedWith);
    expect(JSON.stringify(detail)).not.toContain(endpoint.secret);
    expect(JSON.stringify(detail)).not.toContain(rotated.secret);

    // Still inside the overlap a moment before it ends.
    clockAheadMs = 24 * HOUR_MS - 60_000;
    expect((await deliverOne(endpoint.id)).status).toBe('SENT');

    // The overlap is over: the new secret alone, which this receiver does not hold yet.
    clockAheadMs = 24 * HOUR_MS + 1000;
    const after = await deliverOne(endpoint.id);
    expect(after).toMatchObject({ status: 'FAILED', lastResponseStatus: 400, signedWith: [fingerprint(rotated.secret)] });
    expect(r.received.at(-1)!.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    const [listed] = await service.admin.webhooks.listEndpoints({ environmentId }).then((list) => list.filter((e) => e.id === endpoint.id));
    expect(listed!.previousSecret).toBeNull();

    // Once the merchant installs the new secret, a resend of that delivery (same bytes) goes through.
    held = [rotated.secret];
    const resent = await service.admin.webhooks.resend({ deliveryId: after.id });
    expect(resent).toMatchObject({ status: 'SENT', signedWith: [fingerprint(rotated.secret)], signature: r.received.at(-2)!.headers['x-service-signature'] });
    clockAheadMs = 0;
  });

  it('never has a delivery refused by a receiver that adds the new secret as soon as it is shown', async () => {
    clockAheadMs = 0;
    let held: string[] = [];
    const r = await merchant(() => held);
    const endpoint = await service.admin.webhooks.createEndpoint({ environmentId, url: r.url() });
    held = [endpoint.secret];
    expect((await deliverOne(endpoint.id)).status).toBe('SENT');

    const rotated = await service.admin.webhooks.rotateSecret({ endpointId: endpoint.id, keepPreviousFor: 600 });
    held = [endpoint.secret, rotated.secret];
    expect(Date.parse(rotated.previousSecret!.expiresAt) - Date.now()).toBeGreaterThan(590_000);
    expect((await deliverOne(endpoint.id)).status).toBe('SENT');

    // A second rotation during the overlap: the secret still signing keeps signing; the one that never signed is discarded.
    const again = await service.admin.webhooks.rotateSecret({ endpointId: endpoint.id, keepPreviousFor: 600 });
    expect(again.previousSecret!.fingerprint).toBe(fingerprint(endpoint.secret));
    held = [endpoint.secret, again.secret];
    expect(await deliverOne(endpoint.id)).toMatchObject({ status: 'SENT', signedWith: [fingerprint(endpoint.secret)] });

    clockAheadMs = 601_000;
    held = [again.secret];
    expect(await deliverOne(endpoint.id)).toMatchObject({ status: 'SENT', signedWith: [fingerprint(again.secret)] });
    const deliveries = (await service.admin.webhooks.listDeliveries({ endpointId: endpoint.id })).items;
    expect(deliveries.map((d) => d.status)).toEqual(['SENT', 'SENT', 'SENT', 'SENT']);
    clockAheadMs = 0;
  });

  it('cuts the old secret at once with "now"', async () => {
    clockAheadMs = 0;
    let held: string[] = [];
    const r = await merchant(() => held);
    const endpoint = await service.admin.webhooks.createEndpoint({ environmentId, url: r.url() });
    held = [endpoint.secret];
    const rotated = await service.admin.webhooks.rotateSecret({ endpointId: endpoint.id, keepPreviousFor: 'now' });
    expect(rotated.previousSecret).toBeNull();

    const delivery = await deliverOne(endpoint.id);
    expect(delivery).toMatchObject({ status: 'FAILED', lastResponseStatus: 400, signedWith: [fingerprint(rotated.secret)] });
    expect(r.received[0]!.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifies(r.received[0]!, [rotated.secret])).toBe(true);
  });

  it('two rotations at once both take effect: a leaked secret cut with "now" never signs again, whichever commits last', async () => {
    clockAheadMs = 0;
    const r = await merchant(() => []);
    for (let round = 0; round < 3; round++) {
      const endpoint = await service.admin.webhooks.createEndpoint({ environmentId, url: r.url() });
      const [cut, routine] = await Promise.all([
        service.admin.webhooks.rotateSecret({ endpointId: endpoint.id, keepPreviousFor: 'now' }),
        service.admin.webhooks.rotateSecret({ endpointId: endpoint.id }),
      ]);
      const delivery = await deliverOne(endpoint.id);
      expect(delivery.signedWith).not.toEqual([fingerprint(endpoint.secret)]);
      expect([[fingerprint(cut.secret)], [fingerprint(routine.secret)]]).toContainEqual(delivery.signedWith);
      const [listed] = (await service.admin.webhooks.listEndpoints({ environmentId })).filter((e) => e.id === endpoint.id);
      expect([fingerprint(cut.secret), fingerprint(routine.secret)]).toContain(listed!.secretFingerprint);
      expect(listed!.previousSecret?.fingerprint).not.toBe(fingerprint(endpoint.secret));
    }
  });

  it('refuses an overlap that is not a positive number of seconds (at most 30 days) or "now"', async () => {
    const r = await merchant(() => []);
    const endpoint = await service.admin.webhooks.createEndpoint({ environmentId, url: r.url() });
    for (const keepPreviousFor of [0, -5, 1.5, 31 * 86400, 'later'] as never[]) {
      await expect(service.admin.webhooks.rotateSecret({ endpointId: endpoint.id, keepPreviousFor })).rejects.toThrow();
    }
  });

  it('is driven from the CLI: rotate-secret --overlap, and delivery show names the signing secrets', async () => {
    clockAheadMs = 0;
    const target = service;
    let held: string[] = [];
    const r = await merchant(() => held);
    const created = await cli(target, ['webhook', 'endpoint', 'create', r.url(), '--env', environmentId]);
    held = [created.json.secret];

    const rotated = await cli(target, ['webhook', 'endpoint', 'rotate-secret', created.json.id, '--overlap', '2h']);
    expect(rotated.code).toBe(0);
    expect(Math.abs(Date.parse(rotated.json.previousSecret.expiresAt) - Date.now() - 2 * HOUR_MS)).toBeLessThan(60_000);
    const delivery = await deliverOne(created.json.id);
    expect(delivery.status).toBe('SENT');
    const shown = await cli(target, ['webhook', 'delivery', 'show', delivery.id]);
    expect(shown.json.signedWith).toEqual([fingerprint(created.json.secret)]);
    expect(shown.stdout).not.toContain(created.json.secret);

    const cut = await cli(target, ['webhook', 'endpoint', 'rotate-secret', created.json.id, '--overlap', 'now']);
    expect(cut.json.previousSecret).toBeNull();
    const bad = await cli(target, ['webhook', 'endpoint', 'rotate-secret', created.json.id, '--overlap', 'tomorrow']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('24h');
  });
});
