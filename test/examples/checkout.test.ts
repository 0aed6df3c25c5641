/** The example checkout driven over HTTP, paying against a real service with the sandbox gateways. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCheckout, type RunningCheckout } from '../../examples/checkout/server';
import { PaymentsClient } from '@service-payments/sdk';
import type { Sandbox } from '../support/gateways';
import type { TestService } from '../support/service';
import type { TestTenant } from '../support/tenant';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';

let world: SandboxedService;
let service: TestService;
let tenant: TestTenant;
let sandbox: Sandbox;
let checkout: RunningCheckout;
let client: PaymentsClient;
const logLines: string[] = [];

beforeAll(async () => {
  world = await startSandboxedService({ routes: { PIX: 'gateway_a', CARD: 'gateway_a' } });
  ({ service, tenant, sandbox } = world);
  checkout = await startCheckout({ port: 0, apiKey: tenant.apiKey, baseUrl: service.url, log: (line) => logLines.push(line) });
  client = new PaymentsClient({ apiKey: tenant.apiKey, baseUrl: service.url });
});
afterAll(async () => {
  await checkout?.close();
  await world?.stop();
});

async function orderIdFromForm(): Promise<string> {
  const page = await fetch(`${checkout.url}/`);
  expect(page.status).toBe(200);
  const html = await page.text();
  const match = /name="orderId" value="(ord_[0-9a-f]+)"/.exec(html);
  expect(match).not.toBeNull();
  return match![1]!;
}

const pay = (fields: Record<string, string>) =>
  fetch(`${checkout.url}/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ sku: 'coffee-250g', name: 'Maria Silva', email: 'maria@example.com', document: '123.456.789-09', ...fields }),
    redirect: 'manual',
  });

const statusOf = async (orderId: string) => {
  const reply = await fetch(`${checkout.url}/orders/${orderId}/status`);
  return { status: reply.status, body: (await reply.json()) as { orderId: string; paymentId?: string; status: string } };
};

const decodeHtml = (text: string) => text.replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');

describe('example checkout', () => {
  it('Pix: shows the copy-and-paste code of a payment for the order; the status endpoint follows it to paid', async () => {
    const orderId = await orderIdFromForm();
    const page = await pay({ orderId, method: 'pix' });
    expect(page.status).toBe(200);
    const html = await page.text();

    const payment = await client.payments.getByExternalId(`checkout-${orderId}`);
    expect(payment).toMatchObject({ method: 'pix', amount: 4990, status: 'pending' });
    const code = /<textarea id="pix-code" readonly>([^<]*)<\/textarea>/.exec(html)?.[1];
    expect(code && decodeHtml(code)).toBe(payment.pix!.qrCodeText);

    expect(await statusOf(orderId)).toEqual({ status: 200, body: { orderId, paymentId: payment.id, status: 'pending' } });
    await sandbox.sims.gateway_a.payPayment(payment.gatewayRef!);
    expect((await statusOf(orderId)).body).toEqual({ orderId, paymentId: payment.id, status: 'paid' });
  });

  it('paying the same order twice reuses its payment', async () => {
    const orderId = await orderIdFromForm();
    const before = sandbox.sims.gateway_a.stats().created.payments;
    expect((await pay({ orderId, method: 'pix' })).status).toBe(200);
    expect((await pay({ orderId, method: 'pix' })).status).toBe(200);
    expect(sandbox.sims.gateway_a.stats().created.payments).toBe(before + 1);
    const first = (await statusOf(orderId)).body.paymentId;
    expect(first).toMatch(/^pay_/);
  });

  it('card: 303 to the gateway checkout page of the payment', async () => {
    const orderId = await orderIdFromForm();
    const reply = await pay({ orderId, method: 'card', sku: 'mug' });
    expect(reply.status).toBe(303);
    const payment = await client.payments.getByExternalId(`checkout-${orderId}`);
    expect(payment).toMatchObject({ method: 'card', amount: 7900 });
    expect(reply.headers.get('location')).toBe(payment.checkoutUrl);
  });

  it('passes the order page as returnUrl; that page shows the stored status, whatever the return says', async () => {
    // The same service, through a fetch that keeps what the SDK sent.
    const sent: Record<string, unknown>[] = [];
    const recording: typeof fetch = (input, init) => {
      if (typeof init?.body === 'string') sent.push(JSON.parse(init.body));
      return fetch(input, init);
    };
    const recorded = await startCheckout({ port: 0, client: new PaymentsClient({ apiKey: tenant.apiKey, baseUrl: service.url, fetch: recording }), log: () => {} });
    try {
      const form = await (await fetch(`${recorded.url}/`)).text();
      const orderId = /name="orderId" value="(ord_[0-9a-f]+)"/.exec(form)![1]!;
      const reply = await fetch(`${recorded.url}/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ orderId, sku: 'mug', method: 'card', name: 'Maria Silva', email: 'maria@example.com', document: '123.456.789-09' }),
        redirect: 'manual',
      });
      // The service took the loopback http returnUrl (a sandbox) and created the card payment.
      expect(reply.status).toBe(303);
      expect(sent).toEqual([expect.objectContaining({ externalId: `checkout-${orderId}`, returnUrl: `${recorded.url}/orders/${orderId}` })]);

      const back = await fetch(`${recorded.url}/orders/${orderId}?status=paid`);
      expect(back.status).toBe(200);
      const page = await back.text();
      expect(page).toContain(orderId);
      expect(page).toMatch(/<strong id="status">pending<\/strong>/);
      expect((await fetch(`${recorded.url}/orders/ord_00000000000000000000`)).status).toBe(404);
    } finally {
      await recorded.close();
    }
  });

  it('invalid customer details come back as a 400 page naming the field; unknown orders are 404', async () => {
    const orderId = await orderIdFromForm();
    const reply = await pay({ orderId, method: 'pix', email: 'not-an-email' });
    expect(reply.status).toBe(400);
    expect(await reply.text()).toContain('customer.email');
    expect((await pay({ orderId: 'ord_x', method: 'pix' })).status).toBe(400);
    expect((await fetch(`${checkout.url}/orders/ord_00000000000000000000/status`)).status).toBe(404);
    expect(logLines.join('\n')).not.toContain(tenant.apiKey);
  });
});
