/** Small pieces every simulator needs: ids, clocks, lookups. (Pix codes: brcode.ts.) */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { SubscriptionInterval } from '../../contract/enums';
import { SimControlError } from './server';

export const newId = (prefix: string): string => `${prefix}${randomBytes(9).toString('base64url')}`;

export const DEFAULT_CARD = { brand: 'visa', last4: '4242' } as const;

/** A return address from a create: absolute http(s), as a browser can be sent to it. */
export const returnUrlSchema = z
  .string()
  .max(2048)
  .refine((text) => {
    try {
      const url = new URL(text);
      return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname.length > 0;
    } catch {
      return false;
    }
  }, 'must be an absolute http(s) URL');

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
