/**
 * Delivery signatures (spec 6.2): HMAC-SHA256 with the endpoint's secret over
 * `<timestamp>.<raw body>`, lowercase hex, sent as `sha256=<hex>`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { randomToken } from '../domain/ids';

/** A new endpoint signing secret; the HMAC key is this whole string as UTF-8. */
export const newSigningSecret = (): string => `whsec_${randomToken(40)}`;

export const signedText = (timestamp: number, body: string): string => `${timestamp}.${body}`;

export function signatureHeader(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(signedText(timestamp, body), 'utf8').digest('hex')}`;
}

/** Constant-time check of a received `X-Service-Signature` value (what a receiver does; used by tests and examples). */
export function verifySignature(secret: string, timestamp: number, body: string, received: string): boolean {
  const expected = Buffer.from(signatureHeader(secret, timestamp, body));
  const presented = Buffer.from(received);
  return expected.length === presented.length && timingSafeEqual(expected, presented);
}
