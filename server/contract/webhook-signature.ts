/**
 * Delivery signatures (docs/api.md, "Receiving webhooks"): HMAC-SHA256 with the
 * endpoint's secret over `<timestamp>.<raw body>`, lowercase hex, sent as
 * exactly one `sha256=<hex>` (during a rotation's overlap, by the secret
 * being replaced: see endpoints.ts).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { randomToken } from './ids';

/** A new endpoint signing secret; the HMAC key is this whole string as UTF-8. */
export const newSigningSecret = (): string => `whsec_${randomToken(40)}`;

/**
 * What operators see instead of a secret: the first 12 hex digits of its
 * SHA-256, which a merchant can compute from the secret they hold to tell
 * which one signed a delivery; far too short to help guess the secret.
 */
export const secretFingerprint = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex').slice(0, 12);

export const signedText = (timestamp: number, body: string): string => `${timestamp}.${body}`;

export function signatureHeader(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(signedText(timestamp, body), 'utf8').digest('hex')}`;
}

/**
 * Constant-time check of a received `X-Service-Signature` value (what a
 * receiver does; used by tests and examples): true when the value, or any
 * of several comma-separated ones, is the signature by `secret`.
 */
export function verifySignature(secret: string, timestamp: number, body: string, received: string): boolean {
  const expected = Buffer.from(signatureHeader(secret, timestamp, body));
  let matched = false;
  for (const value of received.split(',')) {
    const presented = Buffer.from(value.trim());
    // Every value is compared, so the time taken does not tell which one matched.
    if (expected.length === presented.length && timingSafeEqual(expected, presented)) matched = true;
  }
  return matched;
}
