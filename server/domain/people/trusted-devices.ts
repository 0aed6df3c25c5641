/**
 * Trusted-device cookies: after a right password, the browser gets a cookie
 * naming a random device id, bound to the e-mail by an HMAC under the master
 * key. Presented again with that e-mail, it makes the browser a client of its
 * own for the log-in throttle (throttle.ts), so failures from its address do
 * not lock it out. Nothing is stored: a forged or foreign cookie simply does
 * not verify and the attempt is counted with its address.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { SecretBox } from '../secret-box';

export const DEVICE_COOKIE = 'dashboard_device';
/** Long-lived on purpose: it grants nothing but a throttle window of its own. */
export const DEVICE_TTL_MS = 180 * 24 * 3600_000;
const PURPOSE = 'dashboard-trusted-device-v1';

const tagOf = (secrets: SecretBox, device: string, email: string) => secrets.mac(PURPOSE, `${device}\n${email}`);

/** A new cookie value for a browser that just proved the password of `email` (normalized). */
export function issueDeviceToken(secrets: SecretBox, email: string): string {
  const device = randomBytes(16).toString('base64url');
  return `${device}.${tagOf(secrets, device, email)}`;
}

/** The device id a cookie value proves for `email` (normalized), or null when it proves nothing. */
export function trustedDevice(secrets: SecretBox, token: string | null, email: string): string | null {
  if (!token) return null;
  const [device, tag, extra] = token.split('.');
  if (!device || !tag || extra !== undefined || !/^[A-Za-z0-9_-]{22}$/.test(device)) return null;
  const expected = Buffer.from(tagOf(secrets, device, email));
  const presented = Buffer.from(tag);
  return expected.length === presented.length && timingSafeEqual(expected, presented) ? device : null;
}
