/**
 * An independent TOTP (RFC 6238, SHA-1, 6 digits, 30 s) for the tests, written
 * apart from the server's so a mistake in one cannot hide in both; checked
 * against the RFC's own test vectors in second-factor.test.ts.
 */
import { createHmac } from 'node:crypto';

function fromBase32(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const bits = [...text.replace(/=+$/, '').toUpperCase()].map((char) => alphabet.indexOf(char).toString(2).padStart(5, '0')).join('');
  const bytes = bits.match(/.{8}/g) ?? [];
  return Buffer.from(bytes.map((byte) => parseInt(byte, 2)));
}

/** The code of one time step, with `digits` digits (the RFC's vectors have 8). */
export function totpAtStep(key: Buffer, step: number, digits = 6): string {
  const counter = Buffer.alloc(8);
  counter.writeUInt32BE(Math.floor(step / 2 ** 32), 0);
  counter.writeUInt32BE(step % 2 ** 32, 4);
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = mac[19]! & 15;
  const value = ((mac[offset]! & 127) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!;
  return (value % 10 ** digits).toString().padStart(digits, '0');
}

/** The code an authenticator app shows for a base32 secret at `at` (milliseconds). */
export const totp = (secretBase32: string, at: number): string => totpAtStep(fromBase32(secretBase32), Math.floor(at / 30_000));
