/** Retries, backoff and timeouts of the client against a scripted fake server (small delays throughout). */
import { afterEach, describe, expect, it } from 'vitest';
import { isPaymentsApiError, PaymentsApiError, PaymentsClient, PaymentsConnectionError, PaymentsTimeoutError, type Payment } from '../../sdk/src/index';
import { backoffDelayMs, parseRetryAfter } from '../../sdk/src/retry-policy';
import { hang, json, reset, startFakeServer, type FakeServer, type Step } from './fake-server';

const payment: Payment = {
  id: 'pay_fake0000000000000000000',
  status: 'pending',
  method: 'pix',
  gateway: 'gateway_a',
  amount: 1000,
  currency: 'BRL',
  externalId: 'order-1',
  gatewayRef: 'ch_1',
  customer: null,
  checkoutUrl: null,
  pix: { qrCode: 'https://gateway.example/qr.png', qrCodeText: '000201…' },
  card: null,
  createdAt: '2026-11-25T12:00:00.000Z',
  updatedAt: '2026-11-25T12:00:00.000Z',
  paidAt: null,
  expiresAt: '2026-11-25T12:30:00.000Z',
  subscriptionId: null,
  amountRefunded: 0,
};
const body = { amount: 1000, method: 'pix' as const, externalId: 'order-1', customer: { name: 'A', email: 'a@example.com', document: '12345678909' } };

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function clientFor(script: Step[], options: { maxRetries?: number; timeoutMs?: number } = {}) {
  server = await startFakeServer(script);
  return new PaymentsClient({ apiKey: 'sk_test_fake', baseUrl: server.url, retryBaseDelayMs: 5, retryMaxDelayMs: 20, ...options });
}

const rejection = (promise: Promise<unknown>) => promise.then(() => expect.fail('expected a rejection'), (error: unknown) => error);

describe('retries', () => {
  it('429 with Retry-After: 1, then 201 → one success after two attempts, the same body both times', async () => {
    const client = await clientFor([json(429, { error: 'rate_limit_exceeded' }, { 'retry-after': '1' }), json(201, payment)]);
    const startedAt = Date.now();
    expect(await client.payments.create(body)).toEqual(payment);
    expect(server!.requests).toHaveLength(2);
    // Honouring Retry-After is correctness, not speed: the second attempt cannot come before it.
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(950);
    expect(server!.requests.map((r) => [r.method, r.url, JSON.parse(r.body)])).toEqual([
      ['POST', '/v1/payments', body],
      ['POST', '/v1/payments', body],
    ]);
    expect(server!.requests[0]!.headers.authorization).toBe('Bearer sk_test_fake');
  });

  it('400 is never retried', async () => {
    const client = await clientFor([json(400, { error: 'invalid_input', issues: [{ path: ['amount'], message: 'Too small' }] }), json(201, payment)], { maxRetries: 5 });
    const error = await rejection(client.payments.create(body));
    expect(isPaymentsApiError(error, 'invalid_input')).toBe(true);
    expect(error).toMatchObject({ status: 400, issues: [{ path: ['amount'], message: 'Too small' }], requestId: 'req_400' });
    expect(server!.requests).toHaveLength(1);
  });

  it.each([401, 402, 404, 409, 501])('%i is never retried', async (status) => {
    const client = await clientFor([json(status, { error: 'whatever' }), json(200, payment)]);
    expect(await rejection(client.payments.get(payment.id))).toMatchObject({ status });
    expect(server!.requests).toHaveLength(1);
  });

  it('502 is retried up to maxRetries, then thrown with its code and provider', async () => {
    const failing = json(502, { error: 'gateway_error', provider: 'gateway_b' });
    const client = await clientFor([failing, failing, failing, failing, json(201, payment)], { maxRetries: 3 });
    const error = await rejection(client.payments.create(body));
    expect(error).toBeInstanceOf(PaymentsApiError);
    expect(error).toMatchObject({ status: 502, code: 'gateway_error', provider: 'gateway_b' });
    expect(server!.requests).toHaveLength(4);
  });

  it.each([500, 503, 504])('%i is retried and can then succeed', async (status) => {
    const client = await clientFor([json(status, { error: 'internal_error' }), json(200, payment)]);
    expect(await client.payments.get(payment.id)).toEqual(payment);
    expect(server!.requests).toHaveLength(2);
  });

  it('a Retry-After beyond maxRetryAfterSeconds is handed back instead of waited for', async () => {
    server = await startFakeServer([json(429, { error: 'rate_limit_exceeded' }, { 'retry-after': '120' }), json(200, payment)]);
    const client = new PaymentsClient({ apiKey: 'sk_test_fake', baseUrl: server.url, maxRetryAfterSeconds: 60 });
    expect(await rejection(client.payments.get(payment.id))).toMatchObject({ status: 429, code: 'rate_limit_exceeded', retryAfter: 120 });
    expect(server.requests).toHaveLength(1);
  });

  it('by default waits a few seconds at most: a longer Retry-After comes back at once, for a web handler to answer its own caller', async () => {
    server = await startFakeServer([json(429, { error: 'rate_limit_exceeded' }, { 'retry-after': '30' }), json(200, payment)]);
    const client = new PaymentsClient({ apiKey: 'sk_test_fake', baseUrl: server.url });
    const started = Date.now();
    expect(await rejection(client.payments.get(payment.id))).toMatchObject({ status: 429, retryAfter: 30 });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(server.requests).toHaveLength(1);
  });

  it('a non-JSON error page becomes a PaymentsApiError with code unexpected_response', async () => {
    const html: Step = (_req, res) => void res.writeHead(400, { 'content-type': 'text/html' }).end('<h1>Bad request</h1>');
    const client = await clientFor([html]);
    expect(await rejection(client.payments.get(payment.id))).toMatchObject({ status: 400, code: 'unexpected_response', body: '<h1>Bad request</h1>' });
  });
});

describe('timeouts and network failures', () => {
  it('no answer within timeoutMs → PaymentsTimeoutError (a PaymentsConnectionError) after the retries', async () => {
    const client = await clientFor([hang, hang], { timeoutMs: 100, maxRetries: 1 });
    const error = await rejection(client.payments.get(payment.id));
    expect(error).toBeInstanceOf(PaymentsTimeoutError);
    expect(error).toBeInstanceOf(PaymentsConnectionError);
    expect(error).toMatchObject({ timeoutMs: 100 });
    expect(server!.requests).toHaveLength(2);
  });

  it('a timed-out attempt is retried and the next answer is used', async () => {
    const client = await clientFor([hang, json(201, payment)], { timeoutMs: 100 });
    expect(await client.payments.create(body)).toEqual(payment);
    expect(server!.requests).toHaveLength(2);
  });

  it('a dropped connection is retried; when it keeps dropping, PaymentsConnectionError', async () => {
    const recovering = await clientFor([reset, json(200, payment)]);
    expect(await recovering.payments.get(payment.id)).toEqual(payment);
    await server!.close();

    const client = await clientFor([reset, reset, reset], { maxRetries: 2 });
    const error = await rejection(client.payments.get(payment.id));
    expect(error).toBeInstanceOf(PaymentsConnectionError);
    expect(error).not.toBeInstanceOf(PaymentsTimeoutError);
    expect(server!.requests).toHaveLength(3);
    expect(String((error as Error).message)).not.toContain('sk_test_fake');
  });

  it("the caller's AbortSignal stops the call and its retries with the caller's reason", async () => {
    const client = await clientFor([hang, hang, hang], { timeoutMs: 5_000 });
    const controller = new AbortController();
    const pending = rejection(client.payments.get(payment.id, { signal: controller.signal }));
    setTimeout(() => controller.abort(new Error('checkout closed')), 50);
    expect(await pending).toMatchObject({ message: 'checkout closed' });
    expect(server!.requests).toHaveLength(1);
  });
});

describe('backoff', () => {
  it('full jitter: uniformly within [0, min(max, base·2^retry)]', () => {
    const options = { baseDelayMs: 100, maxDelayMs: 1_000 };
    expect(backoffDelayMs(0, { ...options, random: () => 0.999 })).toBe(99);
    expect(backoffDelayMs(3, { ...options, random: () => 0.5 })).toBe(400);
    expect(backoffDelayMs(10, { ...options, random: () => 0.999 })).toBe(999);
    expect(backoffDelayMs(2, { ...options, random: () => 0 })).toBe(0);
  });

  it('Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('7')).toBe(7);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    const now = Date.parse('2026-11-22T02:00:00Z');
    expect(parseRetryAfter('Sun, 22 Nov 2026 02:00:30 GMT', now)).toBe(30);
  });
});
