/**
 * TOTP (RFC 6238 over RFC 4226's HOTP) as authenticator apps compute it:
 * HMAC-SHA-1, 6 digits, 30-second steps from the Unix epoch. Written on
 * node:crypto directly (a dozen lines), so nothing else sees the secret.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const TOTP_DIGITS = 6;
export const TOTP_STEP_SECONDS = 30;
/** Steps either side of now that are still accepted: a phone's clock a little off, a code typed as it changes. */
export const TOTP_WINDOW = 1;
/** RFC 4226 asks for at least 128 bits and recommends 160: the length of an HMAC-SHA-1 key. */
const SECRET_BYTES = 20;

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function base32Encode(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Buffer {
  const clean = text.replace(/[\s=]/g, '').toUpperCase();
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of clean) {
    const index = BASE32.indexOf(char);
    if (index < 0) throw new Error('not base32');
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(bytes);
}

/** A new random secret, base32 as apps take it typed in. */
export const newTotpSecret = (): string => base32Encode(randomBytes(SECRET_BYTES));

/** The time step a moment falls in. */
export const stepAt = (now: Date): number => Math.floor(now.getTime() / 1000 / TOTP_STEP_SECONDS);

/** HOTP of one counter (RFC 4226 section 5.3: dynamic truncation). */
export function hotp(secret: Buffer, counter: number): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const digest = createHmac('sha1', secret).update(message).digest();
  const offset = digest[digest.length - 1]! & 0x0f;
  const binary = digest.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** TOTP_DIGITS).padStart(TOTP_DIGITS, '0');
}

/**
 * The step a presented code matches within the window, or null. Every step
 * of the window is computed and compared in constant time, whichever
 * matches, so the time taken says nothing about the code.
 */
export function matchingStep(secretBase32: string, code: string, now: Date): number | null {
  const secret = base32Decode(secretBase32);
  const presented = Buffer.from(code.padEnd(TOTP_DIGITS, ' ').slice(0, TOTP_DIGITS));
  const current = stepAt(now);
  let found: number | null = null;
  for (let step = current - TOTP_WINDOW; step <= current + TOTP_WINDOW; step++) {
    const equal = timingSafeEqual(Buffer.from(hotp(secret, step)), presented);
    if (equal && found === null) found = step;
  }
  return code.length === TOTP_DIGITS ? found : null;
}

/** The otpauth:// URI authenticator apps read from a QR code (Key Uri Format). */
export function otpauthUri(issuer: string, account: string, secretBase32: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const query = new URLSearchParams({ secret: secretBase32, issuer, algorithm: 'SHA1', digits: String(TOTP_DIGITS), period: String(TOTP_STEP_SECONDS) });
  return `otpauth://totp/${label}?${query.toString()}`;
}
