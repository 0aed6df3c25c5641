import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../support/gateways';
import { call, validPayment } from '../support/http';
import { eventually } from '../support/outbox-events';
import { startReceiver, type Receiver } from '../support/receiver';
import { createEnvironment, startWebhookService, type WebhookTestService } from '../support/webhook-service';

let service: WebhookTestService;
let sandbox: Sandbox;
let receiver: Receiver;
let apiKey: string;
let environmentId: string;

beforeAll(async () => {
  service = await startWebhookService({ env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true' } });
  ({ environmentId } = await createEnvironment(service));
  apiKey = (await service.admin.apiKeys.create({ environmentId })).secret;
  sandbox = await startSandbox(service, environmentId, { PIX: 'gateway_a' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await sandbox?.close();
  await service?.stop();
});

describe('webhooks of a payment made through /v1', () => {
  it('the API answers without waiting for (or failing with) the merchant receiver; each transition arrives, in order, with the state at that moment', async () => {
    const endpoint = await service.admin.webhooks.createEndpoint({ environmentId, url: receiver.url() });
    // The receiver is slow and then fails on the first event: the API request that caused it must not notice.
    receiver.answer((delivery) => (delivery.json.type === 'payment.created' ? { status: 500, body: 'busy', delayMs: 2_000 } : { status: 200 }));

    const created = await call(service.url, 'POST', '/v1/payments', { key: apiKey, body: validPayment({ amount: 4250 }) });
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('pending');
    const atResponse = (await service.admin.webhooks.listDeliveries({ endpointId: endpoint.id })).items;
    expect(atResponse.every((d) => d.status === 'PENDING')).toBe(true);

    await eventually(async () => ((await service.admin.webhooks.listDeliveries({ endpointId: endpoint.id, status: 'FAILED' })).items).length === 1);
    await sandbox.sims.gateway_a.payPayment(created.body.gatewayRef);
    expect((await call(service.url, 'GET', `/v1/payments/${created.body.id}`, { key: apiKey })).body.status).toBe('paid');

    const received = await receiver.waitFor(3);
    expect(received.map((d) => d.json.type)).toEqual(['payment.created', 'payment.pending', 'payment.paid']);
    const common = {
      paymentId: created.body.id,
      externalId: created.body.externalId,
      method: 'pix',
      provider: 'gateway_a',
      amount: 4250,
      currency: 'BRL',
    };
    expect(received.map((d) => d.json.data)).toEqual([
      { ...common, status: 'created', gatewayRef: created.body.gatewayRef },
      { ...common, status: 'pending', gatewayRef: created.body.gatewayRef },
      { ...common, status: 'paid', gatewayRef: created.body.gatewayRef },
    ]);
    const deliveries = await eventually(async () => {
      const list = (await service.admin.webhooks.listDeliveries({ endpointId: endpoint.id })).items;
      return list.every((d) => d.status !== 'PENDING') ? list : undefined;
    });
    expect(deliveries.map((d) => [d.eventType, d.status])).toEqual([
      ['payment.paid', 'SENT'],
      ['payment.pending', 'SENT'],
      ['payment.created', 'FAILED'],
    ]);
  });
});
