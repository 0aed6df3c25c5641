/**
 * Verification of outbound webhook deliveries (spec 6.2): HMAC-SHA256 with
 * the endpoint's signing secret over `<X-Service-Timestamp>.<raw body>`, sent
 * as `X-Service-Signature: sha256=<lowercase hex>`, plus a replay window.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent } from './events.js';
import { PaymentsError } from './errors.js';

export type WebhookVerificationFailure = 'missing_header' | 'malformed_signature' | 'timestamp_out_of_tolerance' | 'signature_mismatch' | 'invalid_json';

export class WebhookVerificationError extends PaymentsError {
  override name = 'WebhookVerificationError';
  readonly reason: WebhookVerificationFailure;
  constructor(reason: WebhookVerificationFailure, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** Node's `req.headers`, any plain object (names in any case), or a fetch `Headers`. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookInput {
  /** The request body exactly as received: the bytes (Buffer) or their UTF-8 text. Never re-serialized JSON. */
  rawBody: string | Uint8Array;
  headers: WebhookHeaders;
  /** The endpoint's signing secret, `whsec_…`. */
  secret: string;
  /** Largest accepted distance between the delivery's timestamp and `now`, either way. Default 300. */
  toleranceSeconds?: number;
  /** The current time (default: the clock). */
  now?: Date;
}

const SIGNATURE = /^sha256=([0-9a-fA-F]{64})$/;
const RAW_BODY_HINT = 'Pass the raw request body bytes exactly as received (a Buffer, or its UTF-8 string), not JSON that was parsed and serialized again: the signature covers the exact bytes.';

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers)?.get === 'function' && typeof (headers as Headers).has === 'function') {
    return (headers as Headers).get(name) ?? undefined;
  }
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (key.toLowerCase() !== wanted) continue;
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

function bodyBytes(rawBody: unknown): Buffer | undefined {
  if (typeof rawBody === 'string') return Buffer.from(rawBody, 'utf8');
  if (rawBody instanceof Uint8Array) return Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  if (rawBody instanceof ArrayBuffer) return Buffer.from(rawBody);
  return undefined;
}

/**
 * The service sends compact JSON (no whitespace between tokens). A body that
 * parses but is not in that form, or that is `[object Object]`, was most
 * likely rebuilt from parsed JSON by the receiving framework.
 */
function looksReserialized(body: Buffer): boolean {
  const text = body.toString('utf8');
  if (text.startsWith('[object ')) return true;
  try {
    return JSON.stringify(JSON.parse(text)) !== text;
  } catch {
    return false;
  }
}

/**
 * Verifies a delivery and returns its event. Throws `WebhookVerificationError`
 * (with `reason`) when the delivery must not be trusted: answer it with a 4xx
 * and do not act on it.
 */
export function verifyWebhook(input: VerifyWebhookInput): WebhookEvent {
  const { secret, toleranceSeconds = 300 } = input;
  if (typeof secret !== 'string' || secret === '') throw new TypeError('verifyWebhook: secret (the endpoint signing secret, whsec_…) is required.');
  if (!(toleranceSeconds >= 0)) throw new TypeError('verifyWebhook: toleranceSeconds must be a number >= 0.');

  const timestamp = header(input.headers, 'x-service-timestamp');
  const signature = header(input.headers, 'x-service-signature');
  if (!timestamp || !signature) {
    const missing = [!timestamp && 'X-Service-Timestamp', !signature && 'X-Service-Signature'].filter(Boolean).join(' and ');
    throw new WebhookVerificationError('missing_header', `The delivery has no ${missing} header.`);
  }
  const received = SIGNATURE.exec(signature.trim());
  if (!received) throw new WebhookVerificationError('malformed_signature', 'X-Service-Signature is not of the form sha256=<64 hex digits>.');
  if (!/^\d{1,12}$/.test(timestamp.trim())) throw new WebhookVerificationError('malformed_signature', 'X-Service-Timestamp is not a Unix time in seconds.');

  const body = bodyBytes(input.rawBody);
  if (!body) {
    // A parsed object cannot be verified: its bytes are gone.
    throw new WebhookVerificationError('signature_mismatch', `The signature cannot be checked: rawBody is a ${typeof input.rawBody === 'object' ? 'parsed object' : typeof input.rawBody}. ${RAW_BODY_HINT}`);
  }
  const expected = createHmac('sha256', secret).update(`${timestamp.trim()}.`, 'utf8').update(body).digest();
  const presented = Buffer.from(received[1]!, 'hex');
  // Both are 32-byte digests, so timingSafeEqual compares equal lengths in constant time.
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
    const hint = looksReserialized(body)
      ? `The body does not look like the bytes the service sent (it seems re-serialized). ${RAW_BODY_HINT}`
      : `Check that the secret is this endpoint's current signing secret, and that rawBody is the raw request body. ${RAW_BODY_HINT}`;
    throw new WebhookVerificationError('signature_mismatch', `The signature does not match. ${hint}`);
  }

  // Checked after the signature, so the timestamp judged is one the service signed.
  const nowSeconds = Math.floor((input.now ?? new Date()).getTime() / 1000);
  const age = nowSeconds - Number(timestamp.trim());
  if (Math.abs(age) > toleranceSeconds) {
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      `The delivery's timestamp is ${Math.abs(age)} s ${age > 0 ? 'old' : 'in the future'}, beyond the ${toleranceSeconds} s tolerance (a replay, or a clock that is off).`,
    );
  }

  let event: unknown;
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('invalid_json', 'The signed body is not valid JSON.');
  }
  if (!isEnvelope(event)) throw new WebhookVerificationError('invalid_json', 'The signed body is not an event envelope {id, type, createdAt, data}.');
  return event as WebhookEvent;
}

function isEnvelope(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const { id, type, createdAt, data } = value as Record<string, unknown>;
  return typeof id === 'string' && typeof type === 'string' && typeof createdAt === 'string' && typeof data === 'object' && data !== null;
}
