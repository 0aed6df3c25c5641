/** verifyWebhook against signatures computed here exactly as the README describes them, independently of the SDK. */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  generateTestWebhook,
  generateTestWebhookAsync,
  verifyWebhook,
  verifyWebhookAsync,
  verifyWebhookDelivery,
  verifyWebhookDeliveryAsync,
  WebhookPayloadError,
  WebhookSignatureError,
  WebhookTimestampError,
  WebhookVerificationError,
  type VerifyWebhookInput,
  type WebhookVerificationFailure,
} from '@service-payments/sdk';
import * as edge from '@service-payments/sdk/webcrypto';

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

/** HMAC-SHA256(secret, `<timestamp>.<raw body>`), lowercase hex, prefixed `sha256=`. */
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

describe('secret rotation: several secrets, several signatures', () => {
  const oldSecret = secret;
  const newSecret = 'whsec_newnewnewnewnewnewnewnewnewnewnewnewnew';
  const timestamp = nowSeconds - 2;
  // What the service sends during an overlap: the new secret's value first, no space.
  const overlap = { 'x-service-timestamp': String(timestamp), 'x-service-signature': `${sign(rawBody, timestamp, newSecret)},${sign(rawBody, timestamp, oldSecret)}` };

  it('accepts a delivery signed by any one of the secrets given', () => {
    const byOld = headersFor(rawBody, timestamp, oldSecret);
    expect(verifyWebhook({ rawBody, headers: byOld, secret: [newSecret, oldSecret], now }).id).toBe(event.id);
    expect(verifyWebhook({ rawBody, headers: byOld, secret: [oldSecret], now }).id).toBe(event.id);
    expect(failure(() => verifyWebhook({ rawBody, headers: byOld, secret: [newSecret], now }))).toBeInstanceOf(WebhookSignatureError);
  });

  it('accepts an overlap header with either secret alone or both, and refuses it with neither', () => {
    for (const secrets of [oldSecret, newSecret, [oldSecret, newSecret], [newSecret, oldSecret]]) {
      expect(verifyWebhook({ rawBody, headers: overlap, secret: secrets, now }).id).toBe(event.id);
    }
    const spaced = { ...overlap, 'x-service-signature': overlap['x-service-signature'].replace(',', ' , ') };
    expect(verifyWebhook({ rawBody, headers: spaced, secret: oldSecret, now }).id).toBe(event.id);
    expect(reasonOf(() => verifyWebhook({ rawBody, headers: overlap, secret: ['whsec_other', `${newSecret}x`], now }))).toBe('signature_mismatch');
  });

  it('skips values of another scheme, refuses malformed sha256 values and oversized lists', () => {
    const good = sign(rawBody, timestamp);
    const withFuture = { 'x-service-timestamp': String(timestamp), 'x-service-signature': `v2=${'f'.repeat(10)},${good}` };
    expect(verifyWebhook({ rawBody, headers: withFuture, secret, now }).id).toBe(event.id);
    expect(reasonOf(() => verifyWebhook({ rawBody, headers: { ...withFuture, 'x-service-signature': `${good},sha256=xyz` }, secret, now }))).toBe('malformed_signature');
    const many = Array.from({ length: 9 }, () => good).join(',');
    expect(reasonOf(() => verifyWebhook({ rawBody, headers: { ...withFuture, 'x-service-signature': many }, secret, now }))).toBe('malformed_signature');
  });

  it('refuses an empty secret list or an empty secret among them', () => {
    expect(() => verifyWebhook({ rawBody, headers: overlap, secret: [], now })).toThrow(TypeError);
    expect(() => verifyWebhook({ rawBody, headers: overlap, secret: [oldSecret, ''], now })).toThrow(TypeError);
  });
});

describe('stale timestamps are told apart from bad signatures', () => {
  const oldTimestamp = nowSeconds - 3 * 3600;

  it('a correctly signed old delivery is a WebhookTimestampError carrying the verified event', () => {
    const error = failure(() => verifyWebhook({ rawBody, headers: headersFor(rawBody, oldTimestamp), secret, now }));
    expect(error).toBeInstanceOf(WebhookTimestampError);
    expect(error).not.toBeInstanceOf(WebhookSignatureError);
    const stale = error as WebhookTimestampError;
    expect(stale.reason).toBe('timestamp_out_of_tolerance');
    expect(stale.event).toEqual(event);
    expect(stale).toMatchObject({ timestamp: oldTimestamp, ageSeconds: 3 * 3600, toleranceSeconds: 300 });
  });

  it('verifyWebhookDelivery returns it as stale instead, and fresh ones as not stale', () => {
    expect(verifyWebhookDelivery({ rawBody, headers: headersFor(rawBody, oldTimestamp), secret, now })).toEqual({
      event,
      stale: true,
      timestamp: oldTimestamp,
      ageSeconds: 3 * 3600,
    });
    expect(verifyWebhookDelivery({ rawBody, headers: headersFor(rawBody, nowSeconds - 2), secret, now })).toMatchObject({ event, stale: false, ageSeconds: 2 });
    expect(verifyWebhookDelivery({ rawBody, headers: headersFor(rawBody, nowSeconds + 900), secret, now })).toMatchObject({ stale: true, ageSeconds: -900 });
  });

  it('an old delivery with a bad signature is a signature error, never a stale event', () => {
    const forged = headersFor(rawBody, oldTimestamp, 'whsec_guessed');
    expect(failure(() => verifyWebhook({ rawBody, headers: forged, secret, now }))).toBeInstanceOf(WebhookSignatureError);
    expect(failure(() => verifyWebhookDelivery({ rawBody, headers: forged, secret, now }))).toBeInstanceOf(WebhookSignatureError);
  });

  it('a signed body that is not an event is a WebhookPayloadError, stale or not', () => {
    expect(failure(() => verifyWebhookDelivery({ rawBody: '[1]', headers: headersFor('[1]', oldTimestamp), secret, now }))).toBeInstanceOf(WebhookPayloadError);
  });
});

describe('the WebCrypto verifier agrees with the node:crypto one', () => {
  const settle = async (run: () => Promise<unknown>) => run().then((value) => ({ value }), (error: unknown) => ({ error }));
  const outcome = (run: () => unknown) => {
    try {
      return { value: run() };
    } catch (error) {
      return { error };
    }
  };
  const describeOutcome = (result: { value?: unknown; error?: unknown }) =>
    'error' in result ? { error: (result.error as Error).constructor.name, reason: (result.error as WebhookVerificationError).reason } : { value: result.value };

  const cases: [string, VerifyWebhookInput][] = [
    ['valid', { rawBody, headers: headersFor(rawBody), secret, now }],
    ['valid bytes', { rawBody: new TextEncoder().encode(rawBody), headers: headersFor(rawBody), secret, now }],
    ['several secrets', { rawBody, headers: headersFor(rawBody), secret: ['whsec_a', secret], now }],
    ['tampered', { rawBody: rawBody.replace('2500', '1'), headers: headersFor(rawBody), secret, now }],
    ['other secret', { rawBody, headers: headersFor(rawBody, nowSeconds, 'whsec_b'), secret, now }],
    ['stale', { rawBody, headers: headersFor(rawBody, nowSeconds - 3600), secret, now }],
    ['missing header', { rawBody, headers: {}, secret, now }],
    ['malformed', { rawBody, headers: { 'x-service-timestamp': '1', 'x-service-signature': 'sha256=zz' }, secret, now }],
    ['not an envelope', { rawBody: '{}', headers: headersFor('{}'), secret, now }],
  ];

  it.each(cases)('%s', async (_name, input) => {
    expect(describeOutcome(await settle(() => verifyWebhookAsync(input)))).toEqual(describeOutcome(outcome(() => verifyWebhook(input))));
    expect(describeOutcome(await settle(() => verifyWebhookDeliveryAsync(input)))).toEqual(describeOutcome(outcome(() => verifyWebhookDelivery(input))));
  });

  it('the /webcrypto entry hands out the same error classes as the main entry', () => {
    expect(edge.WebhookTimestampError).toBe(WebhookTimestampError);
    expect(edge.PaymentsClient).toBeDefined();
    expect('verifyWebhook' in edge).toBe(false);
  });
});

describe('generateTestWebhook', () => {
  const data = { paymentId: 'pay_test', externalId: 'order-7', status: 'paid', method: 'pix', provider: 'gateway_a', amount: 990, currency: 'BRL', gatewayRef: null } as const;

  it('signs a delivery as the service does: headers, compact body, HMAC of <timestamp>.<body>', () => {
    const delivery = generateTestWebhook({ secret, event: { type: 'payment.paid', data }, timestamp: nowSeconds });
    expect(delivery.event).toMatchObject({ id: expect.stringMatching(/^evt_test_[0-9a-f]{24}$/), type: 'payment.paid', createdAt: expect.any(String), data });
    expect(delivery.rawBody).toBe(JSON.stringify(delivery.event));
    expect(delivery.headers).toEqual({
      'content-type': 'application/json',
      'user-agent': 'service-payments-webhooks/1.0',
      'x-service-event': 'payment.paid',
      'x-service-delivery-id': expect.stringMatching(/^wd_test_/),
      'x-service-timestamp': String(nowSeconds),
      'x-service-signature': sign(delivery.rawBody, nowSeconds),
    });
    expect(verifyWebhook({ rawBody: delivery.rawBody, headers: delivery.headers, secret, now })).toEqual(delivery.event);
  });

  it('several secrets give an overlap header; an old timestamp gives a stale delivery', () => {
    const delivery = generateTestWebhook({ secret: ['whsec_new', secret], event: { id: 'evt_fixed', type: 'payment.paid', data }, timestamp: new Date(now.getTime() - 86_400_000) });
    expect(delivery.headers['x-service-signature']!.split(',')).toHaveLength(2);
    expect(delivery.event.id).toBe('evt_fixed');
    const verified = verifyWebhookDelivery({ rawBody: delivery.rawBody, headers: delivery.headers, secret: 'whsec_new', now });
    expect(verified).toMatchObject({ stale: true, ageSeconds: 86_400, event: { id: 'evt_fixed' } });
  });

  it('the WebCrypto twin signs the same bytes the same way', async () => {
    const input = { secret: [secret, 'whsec_other'], event: { id: 'evt_same', createdAt: '2026-11-22T01:00:00.000Z', type: 'payment.paid' as const, data }, timestamp: nowSeconds, deliveryId: 'wd_same' };
    expect(await generateTestWebhookAsync(input)).toEqual(generateTestWebhook(input));
  });

  it('refuses a missing secret or event', () => {
    expect(() => generateTestWebhook({ secret: '', event: { type: 'payment.paid', data } })).toThrow(TypeError);
    expect(() => generateTestWebhook({ secret, event: undefined as never })).toThrow(TypeError);
  });
});
