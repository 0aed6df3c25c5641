/**
 * The example checkout: a node:http server that starts a Pix or card payment
 * for an order with the SDK (server side, where the API key lives) and
 * reports the order's status from the stored payment.
 *
 *   GET  /                     the order form
 *   POST /orders               pay an order: Pix → the copy-and-paste code; card → 303 to the checkout page
 *   GET  /orders/{id}          the order's page, where the gateway's hosted checkout sends the customer back (returnUrl)
 *   GET  /orders/{id}/status   {orderId, paymentId, status} of the stored payment (never a gateway call)
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isInvalidInputError, isPaymentsApiError, PaymentsClient, type Payment, type WithResponse } from '@service-payments/sdk';
import { findProduct } from './catalogue.js';
import { externalIdOf, isOrderId, newOrderId, OrderBook } from './orders.js';
import { errorPage, orderForm, pixPage, returnPage } from './pages.js';

export interface CheckoutOptions {
  /** 0 picks a free port. */
  port: number;
  host?: string;
  /** The SDK client, or what to build one from. */
  client?: PaymentsClient;
  apiKey?: string;
  baseUrl?: string;
  /**
   * The address customers reach the shop at, for the `returnUrl` of
   * payments (default: the address it listens on). `https://` in
   * production; the service takes `http://` only for a loopback host in a sandbox.
   */
  publicUrl?: string;
  log?: (line: string) => void;
}

export interface RunningCheckout {
  url: string;
  close(): Promise<void>;
}

const MAX_FORM_BYTES = 16 * 1024;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function startCheckout(options: CheckoutOptions): Promise<RunningCheckout> {
  const client = options.client ?? new PaymentsClient({ apiKey: options.apiKey ?? '', baseUrl: options.baseUrl ?? '' });
  const log = options.log ?? ((line: string) => console.log(line));
  const orders = new OrderBook();
  // Known once listening, when no public address was given.
  let publicUrl = options.publicUrl?.replace(/\/$/, '');

  async function payOrder(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = new URLSearchParams(await readBody(req));
    const orderId = form.get('orderId') ?? '';
    const product = findProduct(form.get('sku') ?? '');
    const method = form.get('method');
    if (!isOrderId(orderId) || !product || (method !== 'pix' && method !== 'card')) throw new HttpError(400, 'Choose a product and a payment method.');

    const order = orders.open(orderId, product.sku, product.price);
    let payment: WithResponse<Payment>;
    try {
      // Same order → same externalId → the same payment, however often this runs.
      payment = await client.payments.create({
        amount: order.amount,
        method,
        externalId: externalIdOf(order.id),
        customer: { name: form.get('name') ?? '', email: form.get('email') ?? '', document: form.get('document') ?? '' },
        metadata: { orderId: order.id, sku: order.sku },
        // Where the gateway's hosted checkout sends the customer back: the order's page, which reads the status from the API.
        returnUrl: `${publicUrl}/orders/${order.id}`,
      });
    } catch (error) {
      if (isInvalidInputError(error)) {
        const lines = error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
        return send(res, 400, errorPage('Please check your details', lines));
      }
      // Log the stable code and request id (never the key or the customer's document).
      log(`payment for ${order.id} failed: ${isPaymentsApiError(error) ? `${error.code} (request ${error.requestId ?? '?'})` : String(error)}`);
      return send(res, 502, errorPage('Payment unavailable', ['The payment could not be started. Please try again: your order will not be charged twice.']));
    }
    order.paymentId = payment.id;
    // `idempotentReplayed`: this order's payment already existed (a second submit, a retry); nothing new was charged.
    const { idempotentReplayed, requestId } = payment.lastResponse;
    log(`order ${order.id}: payment ${payment.id} ${payment.method} ${payment.status}${idempotentReplayed ? ' (existing payment)' : ''} (request ${requestId ?? '?'})`);

    if (payment.method === 'card' && payment.checkoutUrl) {
      res.writeHead(303, { location: payment.checkoutUrl, 'cache-control': 'no-store' }).end();
      return;
    }
    if (payment.method === 'pix' && payment.pix?.qrCodeText) return send(res, 200, pixPage(order.id, payment));
    // The gateway has not handed over the QR code or checkout page yet; the status page keeps polling.
    return send(res, 202, errorPage('Payment started', [`Your payment is ${payment.status}. Refresh this page in a moment.`]));
  }

  /** The page a customer returns to from the gateway: the status comes from the stored payment, never from the return's query string. */
  async function orderPage(res: ServerResponse, orderId: string): Promise<void> {
    if (!isOrderId(orderId) || !orders.get(orderId)) throw new HttpError(404, 'No such order.');
    try {
      const payment = await client.payments.getByExternalId(externalIdOf(orderId));
      send(res, 200, returnPage(orderId, payment));
    } catch (error) {
      if (isPaymentsApiError(error, 'not_found')) return send(res, 404, errorPage('Payment not started', ['This order has no payment yet.']));
      throw error;
    }
  }

  async function orderStatus(res: ServerResponse, orderId: string): Promise<void> {
    if (!isOrderId(orderId) || !orders.get(orderId)) throw new HttpError(404, 'No such order.');
    try {
      // The stored payment: a read that never calls the gateway; webhooks (or sync) keep it current.
      const payment = await client.payments.getByExternalId(externalIdOf(orderId));
      sendJson(res, 200, { orderId, paymentId: payment.id, status: payment.status });
    } catch (error) {
      if (isPaymentsApiError(error, 'not_found')) return sendJson(res, 404, { orderId, status: 'not_started' });
      throw error;
    }
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://checkout.local');
    const status = /^\/orders\/([^/]+)\/status$/.exec(url.pathname);
    const page = /^\/orders\/([^/]+)$/.exec(url.pathname);
    let handled: Promise<void>;
    if (req.method === 'GET' && url.pathname === '/') handled = Promise.resolve(send(res, 200, orderForm(newOrderId())));
    else if (req.method === 'POST' && url.pathname === '/orders') handled = payOrder(req, res);
    else if (req.method === 'GET' && status) handled = orderStatus(res, decodeURIComponent(status[1]!));
    else if (req.method === 'GET' && page) handled = orderPage(res, decodeURIComponent(page[1]!));
    else handled = Promise.reject(new HttpError(404, 'Not found.'));
    handled.catch((error: unknown) => {
      if (error instanceof HttpError) return send(res, error.status, errorPage(error.message, []));
      log(`unexpected error: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) send(res, 500, errorPage('Something went wrong', []));
    });
  });
  const running = await listen(server, options.port, options.host);
  publicUrl ??= running.url;
  return running;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_FORM_BYTES) {
        reject(new HttpError(413, 'Form too large.'));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

export async function listen(server: Server, port: number, host = '127.0.0.1'): Promise<RunningCheckout> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeIdleConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
