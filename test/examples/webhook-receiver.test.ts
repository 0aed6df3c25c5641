/** The example webhook receiver over HTTP: signed deliveries in, forged ones out, each event handled once. */
import { createHash, createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleEvent } from '../../examples/webhook-receiver/handlers';
import { secretsFrom } from '../../examples/webhook-receiver/main';
import { startWebhookReceiver, type RunningWebhookReceiver } from '../../examples/webhook-receiver/server';
import { generateTestWebhook, PaymentsClient, type TestWebhookEventInput, type WebhookEvent } from '@service-payments/sdk';
import { startSandbox, type Sandbox } from '../support/gateways';
import { startTestService, type TestService } from '../support/service';
import { createTenant } from '../support/tenant';
import { eventually as eventuallyStored } from '../support/outbox-events';

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

/** A delivery signed the way the service signs it. */
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

/** Handling runs after the answer: waits for it (bounded) with the shared eventually rather than a polling copy of it. */
const eventually = <T>(read: () => T | undefined, timeoutMs = 5_000): Promise<T> => eventuallyStored(async () => read(), timeoutMs, 'the receiver to have handled it');

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
    // Old and not signed by the secret: refused (a correctly signed old one is a resend: see below).
    expect((await deliver(body, { timestamp: now - 3600, key: 'whsec_guessed' })).status).toBe(400);
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

describe('example webhook receiver: rotation and late resends', () => {
  const oldSecret = 'whsec_rotationold000000000000000000000000';
  const newSecret = 'whsec_rotationnew000000000000000000000000';
  let rotating: RunningWebhookReceiver;
  const taken: WebhookEvent[] = [];
  const lines: string[] = [];

  beforeAll(async () => {
    rotating = await startWebhookReceiver({ port: 0, secret: secretsFrom({ WEBHOOK_SECRETS: `${newSecret}, ${oldSecret}` }), onEvent: (event) => void taken.push(event), log: (line) => lines.push(line) });
  });
  afterAll(() => rotating?.close());

  const paid = (id: string): TestWebhookEventInput => ({ id, type: 'payment.paid', data: { paymentId: 'pay_rot', externalId: 'order-rot', status: 'paid', method: 'pix', provider: 'gateway_a', amount: 100, currency: 'BRL', gatewayRef: null } });
  const post = (delivery: { rawBody: string; headers: Record<string, string> }, headers: Record<string, string> = {}) =>
    fetch(rotating.url, { method: 'POST', headers: { ...delivery.headers, ...headers }, body: delivery.rawBody });
  const anHourAgo = () => Math.floor(Date.now() / 1000) - 3600;

  it('WEBHOOK_SECRETS lists the secrets, WEBHOOK_SECRET is one; none is an error', () => {
    expect(secretsFrom({ WEBHOOK_SECRETS: 'whsec_a, whsec_b,' })).toEqual(['whsec_a', 'whsec_b']);
    expect(secretsFrom({ WEBHOOK_SECRET: 'whsec_a' })).toEqual(['whsec_a']);
    expect(() => secretsFrom({})).toThrow(/WEBHOOK_SECRETS/);
  });

  it('takes deliveries signed by the old secret, the new one, or both', async () => {
    for (const [id, secret] of [
      ['evt_rot_old', oldSecret],
      ['evt_rot_new', newSecret],
      ['evt_rot_both', [newSecret, oldSecret]],
    ] as const) {
      const reply = await post(generateTestWebhook({ secret, event: paid(id) }));
      expect(reply.status, id).toBe(200);
      expect(await reply.json()).toEqual({ received: true });
    }
    expect((await post(generateTestWebhook({ secret: 'whsec_retired', event: paid('evt_rot_retired') }))).status).toBe(400);
    await eventually(() => (taken.length >= 3 ? taken : undefined));
    expect(taken.map((event) => event.id).sort()).toEqual(['evt_rot_both', 'evt_rot_new', 'evt_rot_old']);
  });

  it('a late resend of an event never processed is handled once; of one already processed, it is a duplicate', async () => {
    const late = generateTestWebhook({ secret: oldSecret, event: paid('evt_missed_while_down'), timestamp: anHourAgo() });
    const reply = await post(late);
    expect(reply.status).toBe(200);
    expect(await reply.json()).toEqual({ received: true });
    await eventually(() => taken.find((event) => event.id === 'evt_missed_while_down'));
    expect(lines.join('\n')).toMatch(/late resend of payment.paid evt_missed_while_down/);

    const again = await post(late);
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    const lateRepeat = generateTestWebhook({ secret: newSecret, event: paid('evt_rot_new'), timestamp: anHourAgo() });
    expect(await (await post(lateRepeat)).json()).toEqual({ received: true, duplicate: true });
    expect(taken.filter((event) => event.id === 'evt_missed_while_down')).toHaveLength(1);
  });

  it('repeats are recognised by the signed event id, whatever X-Service-Delivery-Id says', async () => {
    const first = generateTestWebhook({ secret: newSecret, event: paid('evt_dedupe_on_id'), deliveryId: 'wd_one' });
    expect(await (await post(first)).json()).toEqual({ received: true });
    // Same signed event under another (unsigned) delivery id: still a repeat.
    expect(await (await post(first, { 'x-service-delivery-id': 'wd_forged' })).json()).toEqual({ received: true, duplicate: true });
    // Another event under the same delivery id: a new event.
    const other = generateTestWebhook({ secret: newSecret, event: paid('evt_dedupe_other'), deliveryId: 'wd_one' });
    expect(await (await post(other)).json()).toEqual({ received: true });
  });

  it('a forged delivery with an old timestamp is refused, not taken for a resend', async () => {
    const forged = generateTestWebhook({ secret: 'whsec_guessed', event: paid('evt_forged_late'), timestamp: anHourAgo() });
    const reply = await post(forged);
    expect(reply.status).toBe(400);
    expect(await reply.json()).toEqual({ error: 'invalid_signature', reason: 'signature_mismatch' });
  });
});

describe('example webhook receiver behind a real service', () => {
  let service: TestService;
  let sandbox: Sandbox;
  let live: RunningWebhookReceiver;
  let apiKey: string;
  let endpointId: string;
  let endpointSecrets: string | string[] = '';
  const received: WebhookEvent[] = [];
  /** What the example's own handling (handlers.ts) said about each event. */
  const handlerLines: string[] = [];

  beforeAll(async () => {
    service = await startTestService({ env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true' } });
    const tenant = await createTenant(service);
    apiKey = tenant.apiKey;
    sandbox = await startSandbox(service, tenant.environmentId, { PIX: 'gateway_a' });
    // The secret exists only once the endpoint (which needs the receiver's URL) is registered: read it per delivery.
    live = await startWebhookReceiver({
      port: 0,
      secret: () => endpointSecrets,
      onEvent: (event) => {
        received.push(event);
        return handleEvent(event, (line) => handlerLines.push(line));
      },
      log: () => {},
    });
    const endpoint = await service.admin.webhooks.createEndpoint({ environmentId: tenant.environmentId, url: live.url });
    endpointId = endpoint.id;
    endpointSecrets = endpoint.secret;
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

  it('handles refund events like the others: a refund that succeeds and one that fails, as the gateway settles them', async () => {
    const client = new PaymentsClient({ apiKey, baseUrl: service.url });
    const payment = await client.payments.create({
      amount: 3000,
      method: 'pix',
      externalId: `order-refunded-${Date.now()}`,
      customer: { name: 'Maria Silva', email: 'maria@example.com', document: '123.456.789-09' },
    });
    await sandbox.sims.gateway_a.payPayment(payment.gatewayRef!);
    await eventually(() => received.find((e) => e.type === 'payment.paid' && e.data.paymentId === payment.id), 15_000);

    const given = await client.refunds.create(payment.id, { externalId: `refund-ok-${Date.now()}`, amount: 1000 });
    const refused = await client.refunds.create(payment.id, { externalId: `refund-ko-${Date.now()}`, amount: 500 });
    await sandbox.sims.gateway_a.settleRefund(given.gatewayRef!);
    await sandbox.sims.gateway_a.failRefund(refused.gatewayRef!, 'the account cannot receive it');

    const said = (refundId: string, pattern: RegExp) => () => handlerLines.find((line) => line.includes(refundId) && pattern.test(line));
    expect(await eventually(said(given.id, /asked for/), 15_000)).toBe(`refund ${given.id} of payment ${payment.id} (order ${given.externalId}) asked for: 1000 cents`);
    expect(await eventually(said(given.id, /given back/), 15_000)).toBe(`refund ${given.id} of payment ${payment.id}: 1000 cents given back; mark the order refunded`);
    expect(await eventually(said(refused.id, /failed/), 15_000)).toBe(
      `refund ${refused.id} of payment ${payment.id} failed: the account cannot receive it; the money was not given back`,
    );
    expect(handlerLines.filter((line) => line.startsWith('ignored event type'))).toEqual([]);
  });

  it('across a rotation with an overlap, a receiver holding both secrets takes every delivery; a resend of a processed event is a duplicate', async () => {
    const oldSecret = endpointSecrets as string;
    const rotated = await service.admin.webhooks.rotateSecret({ endpointId, keepPreviousFor: 600 });
    endpointSecrets = [rotated.secret, oldSecret];
    const client = new PaymentsClient({ apiKey, baseUrl: service.url });
    const payment = await client.payments.create({
      amount: 1700,
      method: 'pix',
      externalId: `order-rotated-${Date.now()}`,
      customer: { name: 'Maria Silva', email: 'maria@example.com', document: '123.456.789-09' },
    });
    const mine = () => received.filter((e) => 'paymentId' in e.data && e.data.paymentId === payment.id);
    const pending = await eventually(() => mine().find((e) => e.type === 'payment.pending'), 15_000);

    // The receiver may have the event before the service has recorded the attempt's outcome: a resend waits for that.
    const delivery = await eventuallyStored(async () => {
      const [found] = (await service.admin.webhooks.listDeliveries({ endpointId, eventId: pending.id })).items;
      return found?.status === 'SENT' ? found : undefined;
    }, 15_000);
    // Signed by the old secret until the overlap ends; the receiver holds both, as the README tells.
    expect(delivery!.signedWith).toEqual([createHash('sha256').update(oldSecret).digest('hex').slice(0, 12)]);
    const resent = await service.admin.webhooks.resend({ deliveryId: delivery!.id });
    expect(resent.attemptHistory.at(-1)).toMatchObject({ trigger: 'resend', outcome: 'SENT', responseStatus: 200 });
    expect(resent.attemptHistory.at(-1)!.responseExcerpt).toContain('"duplicate":true');
    expect(mine().filter((e) => e.id === pending.id)).toHaveLength(1);
  });
});
