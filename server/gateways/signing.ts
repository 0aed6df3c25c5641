/** Webhook authenticity primitives shared by adapters (verify) and simulators (sign). */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const hmacSha256 = (secret: string, data: string | Buffer, encoding: 'hex' | 'base64'): string =>
  createHmac('sha256', secret).update(data).digest(encoding);

/** Constant-time string comparison; length differences are not secret. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** One header value, matched case-insensitively (first one when repeated). */
export function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}
