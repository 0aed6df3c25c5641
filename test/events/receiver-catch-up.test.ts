/**
 * The example webhook receiver catches up after downtime: it remembers the
 * last event it processed and, on start, reads the events it missed from
 * GET /v1/events (through the SDK), handling each once, in order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PaymentsClient, type WebhookEvent } from '@service-payments/sdk';
import { lastEventInMemory } from '../../examples/webhook-receiver/last-event';
import { startWebhookReceiver, type RunningWebhookReceiver } from '../../examples/webhook-receiver/server';
import { eventually } from '../support/outbox-events';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';

let world: SandboxedService;
let client: PaymentsClient;
let secret = '';
const customer = { name: 'Maria Silva', email: 'maria@example.com', document: '123.456.789-09' };

beforeAll(async () => {
  world = await startSandboxedService({ env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true', WEBHOOK_POLL_INTERVAL_MS: '200' }, routes: { PIX: 'gateway_a' } });
  client = new PaymentsClient({ apiKey: world.tenant.apiKey, baseUrl: world.service.url });
}, 60_000);
afterAll(async () => {
  await world?.stop();
});

const pix = (n: number) => client.payments.create({ amount: 1000 + n, method: 'pix', customer, externalId: `receiver-${n}-${Date.now()}` });

describe('the example receiver after downtime', () => {
  it('reads exactly what it missed on start, then takes deliveries again, each event handled once', async () => {
    const lastEvent = lastEventInMemory();
    const handled: WebhookEvent[] = [];
    const logs: string[] = [];
    const options = { secret: () => secret, onEvent: (event: WebhookEvent) => void handled.push(event), log: (line: string) => logs.push(line), catchUp: { client, lastEvent } };

    let receiver: RunningWebhookReceiver = await startWebhookReceiver({ port: 0, ...options });
    expect(await receiver.caughtUp).toBe(0);
    const port = Number(new URL(receiver.url).port);
    const endpoint = await world.service.admin.webhooks.createEndpoint({ environmentId: world.tenant.environmentId, url: receiver.url });
    secret = endpoint.secret;

    const first = await pix(0);
    await eventually(async () => lastEvent.current() !== undefined && handled.length === 2, 15_000, 'the first deliveries');
    expect(handled.map((e) => e.type)).toEqual(['payment.created', 'payment.pending']);
    expect(lastEvent.current()).toBe(handled[1]!.id);

    // Down: the deliveries of four payments fail (connection refused), and are not retried.
    await receiver.close();
    const missed = [];
    for (let n = 1; n <= 4; n++) missed.push(await pix(n));
    await eventually(async () => {
      const deliveries = (await world.service.admin.webhooks.listDeliveries({ endpointId: endpoint.id })).items;
      return deliveries.length === 10 && deliveries.filter((d) => d.status === 'FAILED').length === 8;
    }, 20_000, 'the deliveries to fail');

    // Back on the same address: it reads the 8 events it missed, in order, then is caught up.
    receiver = await startWebhookReceiver({ port, ...options });
    expect(await receiver.caughtUp).toBe(8);
    const caughtUp = handled.slice(2);
    expect(caughtUp.map((e) => [e.type, (e.data as { paymentId: string }).paymentId])).toEqual(
      missed.flatMap((p) => [
        ['payment.created', p.id],
        ['payment.pending', p.id],
      ]),
    );
    expect(lastEvent.current()).toBe(caughtUp.at(-1)!.id);
    expect(logs).toContain(`caught up: handled 8 event(s) missed after ${handled[1]!.id}`);

    // Deliveries again, and the remembered id follows them.
    await world.sandbox.sims.gateway_a.payPayment(first.gatewayRef!);
    const paid = await eventually(async () => handled.find((e) => e.type === 'payment.paid'), 15_000, 'the paid delivery');
    await eventually(async () => lastEvent.current() === paid.id, 5_000, 'the remembered id');
    expect(new Set(handled.map((e) => e.id)).size).toBe(handled.length);

    // A restart with nothing missed handles nothing again.
    await receiver.close();
    receiver = await startWebhookReceiver({ port, ...options });
    expect(await receiver.caughtUp).toBe(0);
    expect(handled).toHaveLength(11);
    await receiver.close();
  });
});
