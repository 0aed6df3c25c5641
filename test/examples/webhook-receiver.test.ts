/** The example webhook receiver over HTTP: signed deliveries in, forged ones out, each event handled once. */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type RunningWebhookReceiver } from '../../examples/webhook-receiver/server';
import { PaymentsClient, type WebhookEvent } from '../../sdk/src/index';
import { startSandbox, type Sandbox } from '../support/gateways';
import { startTestService, type TestService } from '../support/service';
import { createTenant } from '../support/tenant';

const secret = 'whsec_examplereceiver0123456789abcdefghijkl';
let receiver: RunningWebhookReceiver;
const handled: WebhookEvent[] = [];
const logLines: string[] = [];

beforeAll(async () => {
  receiver = await startWebhookReceiver({ port: 0, secret, onEvent: (event) => void handled.push(event), log: (line) => logLines.push(line) });
});
afterAll(() => receiver?.close());

const paymentEvent = (id: string) => ({
  id,
  type: 'payment.paid',
  createdAt: new Date().toISOString(),
  data: { paymentId: 'pay_abc', externalId: 'order-1', status: 'paid', method: 'pix', provider: 'gateway_a', amount: 2500, currency: 'BRL', gatewayRef: 'ch_1' },
});

/** A delivery signed as spec 6.2 says. */
function deliver(body: string, options: { key?: string; timestamp?: number; signature?: string } = {}) {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const signature = options.signature ?? `sha256=${createHmac('sha256', options.key ?? secret).update(`${timestamp}.${body}`).digest('hex')}`;
  return fetch(receiver.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-event': 'payment.paid',
      'x-service-delivery-id': 'wd_test',
      'x-service-timestamp': String(timestamp),
      'x-service-signature': signature,
    },
    body,
  });
}

/** Handling runs after the answer; wait for it (bounded). */
async function eventually<T>(read: () => T | undefined, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('example webhook receiver', () => {
  it('accepts a correctly signed delivery with 200 and handles its event', async () => {
    const body = JSON.stringify(paymentEvent('evt_accepted0000000000001'));
    const reply = await deliver(body);
    expect(reply.status).toBe(200);
    expect(await reply.json()).toEqual({ received: true });
    expect(await eventually(() => handled.find((e) => e.id === 'evt_accepted0000000000001'))).toEqual(JSON.parse(body));
  });

  it('rejects forged, tampered and stale deliveries with 400 and handles none of them', async () => {
    const body = JSON.stringify(paymentEvent('evt_forged00000000000001'));
    const forged = await deliver(body, { key: 'whsec_guessed' });
    expect(forged.status).toBe(400);
    expect(await forged.json()).toEqual({ error: 'invalid_signature', reason: 'signature_mismatch' });

    const now = Math.floor(Date.now() / 1000);
    const signature = `sha256=${createHmac('sha256', secret).update(`${now}.${body}`).digest('hex')}`;
    expect((await deliver(body.replace('2500', '9'), { timestamp: now, signature })).status).toBe(400);
    expect((await deliver(body, { timestamp: now - 3600 })).status).toBe(400);
    expect((await fetch(receiver.url, { method: 'POST', body })).status).toBe(400);

    // A correctly signed delivery afterwards proves the rejected ones were not just queued.
    const marker = JSON.stringify(paymentEvent('evt_marker00000000000001'));
    expect((await deliver(marker)).status).toBe(200);
    await eventually(() => handled.find((e) => e.id === 'evt_marker00000000000001'));
    expect(handled.some((e) => e.id === 'evt_forged00000000000001')).toBe(false);
    expect(logLines.join('\n')).not.toContain(secret);
  });

  it('answers a repeated event id with 200 but handles it only once', async () => {
    const body = JSON.stringify(paymentEvent('evt_duplicate000000000001'));
    expect((await deliver(body)).status).toBe(200);
    const again = await deliver(body, { timestamp: Math.floor(Date.now() / 1000) - 5 });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    const marker = JSON.stringify(paymentEvent('evt_marker00000000000002'));
    await deliver(marker);
    await eventually(() => handled.find((e) => e.id === 'evt_marker00000000000002'));
    expect(handled.filter((e) => e.id === 'evt_duplicate000000000001')).toHaveLength(1);
  });
});

describe('example webhook receiver behind a real service', () => {
  let service: TestService;
  let sandbox: Sandbox;
  let live: RunningWebhookReceiver;
  let apiKey: string;
  let endpointSecret = '';
  const received: WebhookEvent[] = [];

  beforeAll(async () => {
    service = await startTestService({ env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true' } });
    const tenant = await createTenant(service);
    apiKey = tenant.apiKey;
    sandbox = await startSandbox(service, tenant.environmentId, { PIX: 'gateway_a' });
    // The secret exists only once the endpoint (which needs the receiver's URL) is registered: read it per delivery.
    live = await startWebhookReceiver({ port: 0, secret: () => endpointSecret, onEvent: (event) => void received.push(event), log: () => {} });
    endpointSecret = (await service.admin.webhooks.createEndpoint({ environmentId: tenant.environmentId, url: live.url })).secret;
  });
  afterAll(async () => {
    await live?.close();
    await sandbox?.close();
    await service?.stop();
  });

  it('verifies what the service really sends: a Pix paid through the SDK arrives as created, pending, paid', async () => {
    const client = new PaymentsClient({ apiKey, baseUrl: service.url });
    const payment = await client.payments.create({
      amount: 1500,
      method: 'pix',
      externalId: `order-${Date.now()}`,
      customer: { name: 'Maria Silva', email: 'maria@example.com', document: '123.456.789-09' },
    });
    await sandbox.sims.gateway_a.payPayment(payment.gatewayRef!);
    const types = await eventually(() => {
      const mine = received.filter((e) => 'paymentId' in e.data && e.data.paymentId === payment.id);
      return mine.length >= 3 ? mine.map((e) => e.type) : undefined;
    }, 15_000);
    expect(types).toEqual(['payment.created', 'payment.pending', 'payment.paid']);
  });
});
