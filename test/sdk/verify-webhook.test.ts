/** verifyWebhook against signatures computed here exactly as spec 6.2 says, independently of the SDK. */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError, type WebhookVerificationFailure } from '../../sdk/src/index';

const secret = 'whsec_0123456789abcdefghijklmnopqrstuvwxyzABCD';
const now = new Date('2026-11-22T02:00:00Z');
const nowSeconds = Math.floor(now.getTime() / 1000);

const event = {
  id: 'evt_3k2j4h5g6f7d8s9a0q1w2e3r',
  type: 'payment.paid',
  createdAt: '2026-11-22T01:59:58.000Z',
  data: {
    paymentId: 'pay_3k2j4h5g6f7d8s9a0q1w2e3r',
    externalId: 'order-42',
    status: 'paid',
    method: 'pix',
    provider: 'gateway_a',
    amount: 2500,
    currency: 'BRL',
    gatewayRef: 'ch_123',
    note: 'Pagamento confirmado — obrigado',
  },
};
// What the service sends: compact JSON, with non-ASCII text as UTF-8.
const rawBody = JSON.stringify(event);

/** Spec 6.2: HMAC-SHA256(secret, `<timestamp>.<raw body>`), lowercase hex, prefixed `sha256=`. */
const sign = (body: string | Buffer, timestamp: number, key = secret) =>
  `sha256=${createHmac('sha256', key).update(Buffer.concat([Buffer.from(`${timestamp}.`), Buffer.from(body)])).digest('hex')}`;

const headersFor = (body: string | Buffer, timestamp = nowSeconds - 2, key = secret) => ({
  'x-service-timestamp': String(timestamp),
  'x-service-signature': sign(body, timestamp, key),
  'x-service-event': 'payment.paid',
});

function failure(run: () => unknown): WebhookVerificationError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return error as WebhookVerificationError;
  }
  throw new Error('expected verifyWebhook to throw');
}
const reasonOf = (run: () => unknown): WebhookVerificationFailure => failure(run).reason;

describe('verifyWebhook', () => {
  it('accepts a valid delivery as a Buffer or as its UTF-8 text and returns the typed event', () => {
    const headers = headersFor(rawBody);
    const fromBuffer = verifyWebhook({ rawBody: Buffer.from(rawBody), headers, secret, now });
    expect(fromBuffer).toEqual(event);
    expect(verifyWebhook({ rawBody, headers, secret, now })).toEqual(event);
    if (fromBuffer.type === 'payment.paid') expect(fromBuffer.data.paymentId).toBe(event.data.paymentId);
  });

  it('reads the headers in any case, from a plain object or a Headers instance', () => {
    const { 'x-service-timestamp': timestamp, 'x-service-signature': signature } = headersFor(rawBody);
    expect(verifyWebhook({ rawBody, headers: { 'X-Service-Timestamp': timestamp, 'X-SERVICE-SIGNATURE': signature }, secret, now }).id).toBe(event.id);
    expect(verifyWebhook({ rawBody, headers: new Headers({ 'X-Service-Timestamp': timestamp, 'X-Service-Signature': signature }), secret, now }).id).toBe(event.id);
    expect(verifyWebhook({ rawBody, headers: { 'x-service-timestamp': [timestamp], 'x-service-signature': [signature] }, secret, now }).id).toBe(event.id);
  });

  it('rejects a tampered body', () => {
    const headers = headersFor(rawBody);
    const tampered = rawBody.replace('"amount":2500', '"amount":1');
    expect(reasonOf(() => verifyWebhook({ rawBody: tampered, headers, secret, now }))).toBe('signature_mismatch');
  });

  it('rejects a delivery signed with another secret', () => {
    const headers = headersFor(rawBody, nowSeconds, `${secret}x`);
    const error = failure(() => verifyWebhook({ rawBody, headers, secret, now }));
    expect(error.reason).toBe('signature_mismatch');
    expect(error.message).toMatch(/secret/);
    expect(error.message).not.toContain(secret);
  });

  it('rejects stale and future timestamps beyond the tolerance, accepts them within it', () => {
    for (const offset of [-301, 301, -3600]) {
      const headers = headersFor(rawBody, nowSeconds + offset);
      expect(reasonOf(() => verifyWebhook({ rawBody, headers, secret, now }))).toBe('timestamp_out_of_tolerance');
    }
    for (const offset of [-300, 300, 0]) {
      expect(verifyWebhook({ rawBody, headers: headersFor(rawBody, nowSeconds + offset), secret, now }).id).toBe(event.id);
    }
    const old = headersFor(rawBody, nowSeconds - 900);
    expect(verifyWebhook({ rawBody, headers: old, secret, now, toleranceSeconds: 1_000 }).id).toBe(event.id);
  });

  it('uses the clock when now is not given', () => {
    const fresh = Math.floor(Date.now() / 1000);
    expect(verifyWebhook({ rawBody, headers: headersFor(rawBody, fresh), secret }).id).toBe(event.id);
    expect(reasonOf(() => verifyWebhook({ rawBody, headers: headersFor(rawBody, fresh - 3600), secret }))).toBe('timestamp_out_of_tolerance');
  });

  it('a re-serialized body fails and the message says to pass the raw bytes', () => {
    const headers = headersFor(rawBody);
    const pretty = JSON.stringify(JSON.parse(rawBody), null, 2);
    const error = failure(() => verifyWebhook({ rawBody: pretty, headers, secret, now }));
    expect(error.reason).toBe('signature_mismatch');
    expect(error.message).toMatch(/re-serialized/);
    expect(error.message).toMatch(/raw request body bytes/);

    // JSON with escaped non-ASCII text (as some frameworks write it) differs in bytes from what was signed.
    const escaped = rawBody.replace('—', '\\u2014');
    expect(JSON.parse(escaped)).toEqual(event);
    expect(reasonOf(() => verifyWebhook({ rawBody: escaped, headers, secret, now }))).toBe('signature_mismatch');
  });

  it('a parsed object instead of the raw body is refused with the same advice', () => {
    const headers = headersFor(rawBody);
    const error = failure(() => verifyWebhook({ rawBody: JSON.parse(rawBody) as unknown as string, headers, secret, now }));
    expect(error.reason).toBe('signature_mismatch');
    expect(error.message).toMatch(/parsed object/);
    expect(error.message).toMatch(/raw request body bytes/);
    const stringified = failure(() => verifyWebhook({ rawBody: String(JSON.parse(rawBody)), headers, secret, now }));
    expect(stringified.message).toMatch(/re-serialized/);
  });

  it('missing and malformed headers', () => {
    const { 'x-service-timestamp': timestamp, 'x-service-signature': signature } = headersFor(rawBody);
    expect(reasonOf(() => verifyWebhook({ rawBody, headers: { 'x-service-signature': signature }, secret, now }))).toBe('missing_header');
    expect(reasonOf(() => verifyWebhook({ rawBody, headers: { 'x-service-timestamp': timestamp }, secret, now }))).toBe('missing_header');
    expect(reasonOf(() => verifyWebhook({ rawBody, headers: {}, secret, now }))).toBe('missing_header');
    const malformed = ['sha256=abc', signature.replace('sha256=', 'sha1='), signature.slice(7), `${signature}00`];
    for (const value of malformed) {
      expect(reasonOf(() => verifyWebhook({ rawBody, headers: { 'x-service-timestamp': timestamp, 'x-service-signature': value }, secret, now }))).toBe('malformed_signature');
    }
    expect(reasonOf(() => verifyWebhook({ rawBody, headers: { 'x-service-timestamp': 'yesterday', 'x-service-signature': signature }, secret, now }))).toBe(
      'malformed_signature',
    );
  });

  it('a signed body that is not an event envelope is invalid_json', () => {
    for (const body of ['not json', '[1,2]', '{"id":"evt_1"}']) {
      expect(reasonOf(() => verifyWebhook({ rawBody: body, headers: headersFor(body), secret, now }))).toBe('invalid_json');
    }
  });

  it('refuses to run without a secret', () => {
    expect(() => verifyWebhook({ rawBody, headers: headersFor(rawBody), secret: '', now })).toThrow(TypeError);
  });
});
