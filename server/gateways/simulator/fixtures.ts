/** Small pieces every simulator needs: ids, clocks, fake Pix codes. */
import { randomBytes } from 'node:crypto';
import type { SubscriptionInterval } from '../../contract/enums';
import { SimControlError } from './server';

export const newId = (prefix: string): string => `${prefix}${randomBytes(9).toString('base64url')}`;

/** A 1×1 transparent PNG: the simulators' stand-in for a QR image. */
export const QR_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

/** A copy-and-paste code shaped like a BR Code, unique per charge. */
export function pixCopyPaste(chargeId: string, amountCents: number): string {
  const amount = `${Math.trunc(amountCents / 100)}.${String(amountCents % 100).padStart(2, '0')}`;
  return `00020126580014br.gov.bcb.pix0136${chargeId}5204000053039865406${amount}5802BR5909SIMULATOR6009SAO PAULO6304ABCD`;
}

export const DEFAULT_CARD = { brand: 'visa', last4: '4242' } as const;

export function addInterval(from: Date, interval: SubscriptionInterval): Date {
  const next = new Date(from);
  if (interval === 'monthly') next.setUTCMonth(next.getUTCMonth() + 1);
  else next.setUTCFullYear(next.getUTCFullYear() + 1);
  return next;
}

export const addDays = (from: Date, days: number): Date => new Date(from.getTime() + days * 86_400_000);

export function found<T>(map: Map<string, T>, ref: string, what: string): T {
  const value = map.get(ref);
  if (value === undefined) throw new SimControlError(404, `unknown ${what} ${ref}`);
  return value;
}

/** Control actions move only resources that are still open. */
export function requireOpen(current: string, open: readonly string[], what: string): void {
  if (!open.includes(current)) throw new SimControlError(409, `${what} is ${current}`);
}
