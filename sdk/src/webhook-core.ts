/**
 * Webhook verification without the cryptography: reading the headers, the
 * signature list and the timestamp, judging the result and building test
 * deliveries. Shared by the `node:crypto` verifier (synchronous) and the
 * WebCrypto one (asynchronous, for edge runtimes), so both accept and refuse
 * exactly the same deliveries. Bytes are `Uint8Array` throughout: no Buffer,
 * nothing from `node:`.
 *
 * The scheme: `X-Service-Signature: sha256=<hex>` is HMAC-SHA256, keyed with
 * the endpoint's signing secret (the whole `whsec_…` string as UTF-8), of
 * `<X-Service-Timestamp>.<raw body>`. During a secret rotation the header
 * carries one value per secret, comma-separated, newest first.
 */
import type { WebhookEvent } from './events.js';
import { PaymentsError } from './errors.js';

export type WebhookVerificationFailure = 'missing_header' | 'malformed_signature' | 'timestamp_out_of_tolerance' | 'signature_mismatch' | 'invalid_json';

/** Base of every verification failure: answer the delivery with a 4xx and do not act on it (except as `WebhookTimestampError` explains). */
export class WebhookVerificationError extends PaymentsError {
  override name = 'WebhookVerificationError';
  /** The stable reason, to branch or log on. */
  readonly reason: WebhookVerificationFailure;
  constructor(reason: WebhookVerificationFailure, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** The delivery is not signed by any of the secrets: headers missing or malformed, or no signature matches. Never trust it. */
export class WebhookSignatureError extends WebhookVerificationError {
  override name = 'WebhookSignatureError';
  declare readonly reason: 'missing_header' | 'malformed_signature' | 'signature_mismatch';
  constructor(reason: 'missing_header' | 'malformed_signature' | 'signature_mismatch', message: string) {
    super(reason, message);
  }
}

/** Correctly signed, but the signed body is not an event envelope `{id, type, createdAt, data}`. */
export class WebhookPayloadError extends WebhookVerificationError {
  override name = 'WebhookPayloadError';
  declare readonly reason: 'invalid_json';
  constructor(message: string) {
    super('invalid_json', message);
  }
}

/**
 * Correctly signed by one of the secrets, but its timestamp is further than
 * the tolerance from now: a replay, a clock that is off, or an operator's
 * resend of an old delivery (a resend keeps the first attempt's timestamp
 * and signature). `event` is the verified event: accept it only if you have
 * never processed its `id`.
 */
export class WebhookTimestampError extends WebhookVerificationError {
  override name = 'WebhookTimestampError';
  declare readonly reason: 'timestamp_out_of_tolerance';
  /** The verified event (its bytes are covered by the signature). */
  readonly event: WebhookEvent;
  /** `X-Service-Timestamp`, Unix seconds. */
  readonly timestamp: number;
  /** Seconds between the timestamp and now: positive when older, negative when in the future. */
  readonly ageSeconds: number;
  readonly toleranceSeconds: number;
  constructor(delivery: VerifiedWebhook, toleranceSeconds: number) {
    const age = Math.abs(delivery.ageSeconds);
    super(
      'timestamp_out_of_tolerance',
      `The delivery's timestamp is ${age} s ${delivery.ageSeconds > 0 ? 'old' : 'in the future'}, beyond the ${toleranceSeconds} s tolerance ` +
        '(a replay, a clock that is off, or a resend of an old delivery: accept it only for an event id you have never processed).',
    );
    this.event = delivery.event;
    this.timestamp = delivery.timestamp;
    this.ageSeconds = delivery.ageSeconds;
    this.toleranceSeconds = toleranceSeconds;
  }
}

/** Node's `req.headers`, any plain object (names in any case), or a fetch `Headers` (anything with `get`). */
export type WebhookHeaders = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

export interface VerifyWebhookInput {
  /** The request body exactly as received: its bytes (a Node Buffer is a Uint8Array) or their UTF-8 text. Never re-serialized JSON. */
  rawBody: string | Uint8Array | ArrayBuffer;
  headers: WebhookHeaders;
  /**
   * The endpoint's signing secret, `whsec_…`, or several while a rotation
   * overlaps (`[newSecret, oldSecret]`): a delivery signed by any one of them is accepted.
   */
  secret: string | readonly string[];
  /** Largest accepted distance between the delivery's timestamp and now, either way. Default 300. */
  toleranceSeconds?: number;
  /** The current time (default: the clock). */
  now?: Date;
}

/** A delivery whose signature is valid, with how its timestamp compares to the tolerance. */
export interface VerifiedWebhook {
  event: WebhookEvent;
  /**
   * `true` when the timestamp is further than `toleranceSeconds` from now
   * (typically an operator's resend of an old delivery). Process a stale
   * delivery only if you have never processed `event.id`.
   */
  stale: boolean;
  /** `X-Service-Timestamp`, Unix seconds. */
  timestamp: number;
  /** Seconds between the timestamp and now: positive when older, negative when in the future. */
  ageSeconds: number;
}

/** What the cryptographic half needs: everything parsed and checked except the signature itself. */
export interface PreparedDelivery {
  secrets: string[];
  /** `<timestamp>.<raw body>` as bytes: what the service signed. */
  signedPayload: Uint8Array<ArrayBuffer>;
  /** The presented `sha256=` digests, 32 bytes each. */
  signatures: Uint8Array<ArrayBuffer>[];
  body: Uint8Array;
  timestamp: number;
  toleranceSeconds: number;
  nowSeconds: number;
}

const DEFAULT_TOLERANCE_SECONDS = 300;
/** More values than any rotation produces: bounds the work a forged header can cause. */
const MAX_SIGNATURES = 8;
const HEX_DIGEST = /^[0-9a-fA-F]{64}$/;
const RAW_BODY_HINT =
  'Pass the raw request body bytes exactly as received (a Buffer/Uint8Array, or its UTF-8 string), not JSON that was parsed and serialized again: the signature covers the exact bytes.';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const utf8 = (text: string): Uint8Array<ArrayBuffer> => encoder.encode(text);

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as { get?: unknown })?.get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (key.toLowerCase() !== wanted) continue;
    return Array.isArray(value) ? value[0] : (value as string | undefined);
  }
  return undefined;
}

function bodyBytes(rawBody: unknown): Uint8Array | undefined {
  if (typeof rawBody === 'string') return utf8(rawBody);
  if (rawBody instanceof Uint8Array) return rawBody;
  if (rawBody instanceof ArrayBuffer) return new Uint8Array(rawBody);
  return undefined;
}

function hexToBytes(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

export function bytesToHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** The secrets as a non-empty list of non-empty strings, or a TypeError naming the function. */
export function secretsOf(secret: unknown, where: string): string[] {
  const list = typeof secret === 'string' ? [secret] : Array.isArray(secret) ? [...(secret as unknown[])] : [];
  if (list.length === 0 || !list.every((value) => typeof value === 'string' && value !== '')) {
    throw new TypeError(`${where}: secret (the endpoint signing secret, whsec_…, or a list of them) is required.`);
  }
  return list as string[];
}

/**
 * Reads and checks everything but the HMAC. Throws `TypeError` for a
 * programming mistake (no secret) and `WebhookSignatureError` for a delivery
 * that cannot be genuine.
 */
export function prepareDelivery(input: VerifyWebhookInput, where: string): PreparedDelivery {
  const secrets = secretsOf(input?.secret, where);
  const toleranceSeconds = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!(toleranceSeconds >= 0)) throw new TypeError(`${where}: toleranceSeconds must be a number >= 0.`);

  const timestampText = header(input.headers, 'x-service-timestamp')?.trim();
  const signatureText = header(input.headers, 'x-service-signature');
  if (!timestampText || !signatureText) {
    const missing = [!timestampText && 'X-Service-Timestamp', !signatureText && 'X-Service-Signature'].filter(Boolean).join(' and ');
    throw new WebhookSignatureError('missing_header', `The delivery has no ${missing} header.`);
  }
  const signatures = parseSignatures(signatureText);
  if (!/^\d{1,12}$/.test(timestampText)) throw new WebhookSignatureError('malformed_signature', 'X-Service-Timestamp is not a Unix time in seconds.');

  const body = bodyBytes(input.rawBody);
  if (!body) {
    // A parsed object cannot be verified: its bytes are gone.
    const kind = typeof input.rawBody === 'object' && input.rawBody !== null ? 'parsed object' : typeof input.rawBody;
    throw new WebhookSignatureError('signature_mismatch', `The signature cannot be checked: rawBody is a ${kind}. ${RAW_BODY_HINT}`);
  }
  const prefix = utf8(`${timestampText}.`);
  const signedPayload = new Uint8Array(prefix.length + body.length);
  signedPayload.set(prefix);
  signedPayload.set(body, prefix.length);
  return {
    secrets,
    signedPayload,
    signatures,
    body,
    timestamp: Number(timestampText),
    toleranceSeconds,
    nowSeconds: Math.floor((input.now ?? new Date()).getTime() / 1000),
  };
}

/**
 * `sha256=<hex>[,sha256=<hex>…]`: one value per signing secret. Values of
 * another scheme are skipped, so a later scheme can be added next to
 * sha256 without breaking this verifier; a sha256 value that is not 64 hex
 * digits, or no sha256 value at all, is malformed.
 */
function parseSignatures(text: string): Uint8Array<ArrayBuffer>[] {
  const values = text.split(',').map((value) => value.trim()).filter((value) => value !== '');
  if (values.length > MAX_SIGNATURES) throw new WebhookSignatureError('malformed_signature', `X-Service-Signature carries more than ${MAX_SIGNATURES} values.`);
  const digests: Uint8Array<ArrayBuffer>[] = [];
  for (const value of values) {
    const equals = value.indexOf('=');
    if (equals <= 0) throw new WebhookSignatureError('malformed_signature', 'X-Service-Signature is not of the form sha256=<64 hex digits>[,sha256=…].');
    if (value.slice(0, equals).toLowerCase() !== 'sha256') continue;
    const hex = value.slice(equals + 1);
    if (!HEX_DIGEST.test(hex)) throw new WebhookSignatureError('malformed_signature', 'X-Service-Signature is not of the form sha256=<64 hex digits>[,sha256=…].');
    digests.push(hexToBytes(hex));
  }
  if (digests.length === 0) throw new WebhookSignatureError('malformed_signature', 'X-Service-Signature has no sha256=<64 hex digits> value.');
  return digests;
}

/**
 * The service sends compact JSON (no whitespace between tokens). A body that
 * parses but is not in that form, or that is `[object Object]`, was most
 * likely rebuilt from parsed JSON by the receiving framework.
 */
function looksReserialized(body: Uint8Array): boolean {
  const text = decoder.decode(body);
  if (text.startsWith('[object ')) return true;
  try {
    return JSON.stringify(JSON.parse(text)) !== text;
  } catch {
    return false;
  }
}

/** No presented signature matches any secret. */
export function signatureMismatch(prepared: PreparedDelivery): WebhookSignatureError {
  const hint = looksReserialized(prepared.body)
    ? `The body does not look like the bytes the service sent (it seems re-serialized). ${RAW_BODY_HINT}`
    : `Check that the secret is this endpoint's signing secret (during a rotation, pass both the new and the old one), and that rawBody is the raw request body. ${RAW_BODY_HINT}`;
  return new WebhookSignatureError('signature_mismatch', `The signature does not match. ${hint}`);
}

/** After the signature matched: the event, and whether the signed timestamp is within the tolerance. */
export function verifiedDelivery(prepared: PreparedDelivery): VerifiedWebhook {
  let event: unknown;
  try {
    event = JSON.parse(decoder.decode(prepared.body));
  } catch {
    throw new WebhookPayloadError('The signed body is not valid JSON.');
  }
  if (!isEnvelope(event)) throw new WebhookPayloadError('The signed body is not an event envelope {id, type, createdAt, data}.');
  const ageSeconds = prepared.nowSeconds - prepared.timestamp;
  return { event: event as WebhookEvent, stale: Math.abs(ageSeconds) > prepared.toleranceSeconds, timestamp: prepared.timestamp, ageSeconds };
}

/** The strict reading: a stale delivery is a `WebhookTimestampError` carrying its verified event. */
export function freshEvent(delivery: VerifiedWebhook, toleranceSeconds: number): WebhookEvent {
  if (delivery.stale) throw new WebhookTimestampError(delivery, toleranceSeconds);
  return delivery.event;
}

function isEnvelope(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { id, type, createdAt, data } = value as Record<string, unknown>;
  return typeof id === 'string' && typeof type === 'string' && typeof createdAt === 'string' && typeof data === 'object' && data !== null;
}

// ---------------------------------------------------------------------------
// Test deliveries

type Distribute<E> = E extends WebhookEvent ? Omit<E, 'id' | 'createdAt'> & { id?: string; createdAt?: string } : never;

/** An event to sign: `type` and `data` of any event type; `id` (`evt_test_…`) and `createdAt` (now) are filled in when absent. */
export type TestWebhookEventInput = Distribute<WebhookEvent>;

export interface GenerateTestWebhookInput {
  /** The secret your receiver verifies with; several sign like a rotation's overlap (one value each, in this order). */
  secret: string | readonly string[];
  event: TestWebhookEventInput;
  /** `X-Service-Timestamp`: Unix seconds or a Date. Default now; an old one makes a stale delivery, like a late resend. */
  timestamp?: number | Date;
  /** `X-Service-Delivery-Id`. Default a fresh `wd_test_…`. */
  deliveryId?: string;
}

/** A delivery exactly as the service would send it, to feed to your receiver in tests. */
export interface TestWebhook {
  /** The body bytes as text: send them as is (compact JSON, as the service sends). */
  rawBody: string;
  /** Lowercase names: `content-type`, `user-agent`, `x-service-event`, `x-service-delivery-id`, `x-service-timestamp`, `x-service-signature`. */
  headers: Record<string, string>;
  /** The event that was signed, with its `id` and `createdAt` filled in. */
  event: WebhookEvent;
}

const randomId = (prefix: string): string => {
  const bytes = new Uint8Array(12);
  globalThis.crypto.getRandomValues(bytes);
  return `${prefix}${bytesToHex(bytes)}`;
};

/** Everything of a test delivery but its signatures: the event, the body and the timestamp. */
export function testDeliveryParts(input: GenerateTestWebhookInput, where: string): { secrets: string[]; event: WebhookEvent; rawBody: string; timestamp: string; deliveryId: string } {
  const secrets = secretsOf(input?.secret, where);
  const source = input.event as Partial<WebhookEvent> | undefined;
  if (typeof source?.type !== 'string' || typeof source.data !== 'object' || source.data === null) {
    throw new TypeError(`${where}: event needs a type and a data object.`);
  }
  const at = input.timestamp ?? new Date();
  const seconds = at instanceof Date ? Math.floor(at.getTime() / 1000) : at;
  if (!Number.isInteger(seconds) || seconds < 0) throw new TypeError(`${where}: timestamp must be Unix seconds (an integer) or a Date.`);
  // The envelope's own key order, as the service writes it.
  const event = { id: source.id ?? randomId('evt_test_'), type: source.type, createdAt: source.createdAt ?? new Date().toISOString(), data: source.data } as WebhookEvent;
  return { secrets, event, rawBody: JSON.stringify(event), timestamp: String(seconds), deliveryId: input.deliveryId ?? randomId('wd_test_') };
}

export function testDeliveryHeaders(parts: { event: WebhookEvent; timestamp: string; deliveryId: string }, signatures: string[]): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'service-payments-webhooks/1.0',
    'x-service-event': parts.event.type,
    'x-service-delivery-id': parts.deliveryId,
    'x-service-timestamp': parts.timestamp,
    'x-service-signature': signatures.map((hex) => `sha256=${hex}`).join(','),
  };
}
