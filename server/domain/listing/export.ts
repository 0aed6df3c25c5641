/**
 * The CSV exports of the dashboard's payments and subscriptions lists: the
 * same filter and order as the list, read from the database a batch at a
 * time by the list's own keyset paging (so every row comes once, whatever
 * rows are added meanwhile), each batch written out before the next is read.
 * Nothing holds the whole file: at most one batch of rows is in memory.
 */
import type { EntityManager } from '../../db/orm';
import { listPayments, type PaymentFilter } from '../payments/listing';
import { listSubscriptions, type SubscriptionFilter } from '../subscriptions/listing';
import { csvLine, majorUnits } from './csv';

/** Rows read per query: big enough that 5,000 rows are ten queries, small enough to hold. */
export const EXPORT_BATCH = 500;

type Cells = (string | number | boolean | null)[];

export const PAYMENT_COLUMNS = [
  'id', 'externalId', 'status', 'method', 'gateway', 'amount', 'amountRefunded', 'currency',
  'customerName', 'customerEmail', 'cardBrand', 'cardLast4', 'subscriptionId', 'gatewayRef', 'createdAt', 'paidAt', 'updatedAt',
] as const;

export const SUBSCRIPTION_COLUMNS = [
  'id', 'externalId', 'status', 'interval', 'gateway', 'amount', 'currency',
  'customerName', 'customerEmail', 'nextBillingAt', 'cancelAtPeriodEnd', 'canceledAt', 'gatewayRef', 'createdAt', 'updatedAt',
] as const;

/**
 * Writes the header, then every row, through `write`, which resolves once
 * the receiver can take more (backpressure). `fork` gives a fresh entity
 * manager per batch, so read rows do not pile up in an identity map.
 */
export async function exportPayments(fork: () => EntityManager, filter: Omit<PaymentFilter, 'cursor' | 'limit'>, write: (chunk: string) => Promise<void>) {
  await write(csvLine([...PAYMENT_COLUMNS]));
  let cursor: string | undefined;
  do {
    const page = await listPayments(fork(), { ...filter, cursor, limit: EXPORT_BATCH }, { total: false });
    let chunk = '';
    for (const p of page.items) {
      const cells: Cells = [
        p.id, p.externalId, p.status, p.method, p.gateway, majorUnits(p.amount), majorUnits(p.amountRefunded), p.currency,
        p.customer?.name ?? null, p.customer?.email ?? null, p.card?.brand ?? null, p.card?.last4 ?? null, p.subscriptionId, p.gatewayRef, p.createdAt, p.paidAt, p.updatedAt,
      ];
      chunk += csvLine(cells);
    }
    if (chunk) await write(chunk);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
}

export async function exportSubscriptions(fork: () => EntityManager, filter: Omit<SubscriptionFilter, 'cursor' | 'limit'>, write: (chunk: string) => Promise<void>) {
  await write(csvLine([...SUBSCRIPTION_COLUMNS]));
  let cursor: string | undefined;
  do {
    const page = await listSubscriptions(fork(), { ...filter, cursor, limit: EXPORT_BATCH }, { total: false });
    let chunk = '';
    for (const s of page.items) {
      const cells: Cells = [
        s.id, s.externalId, s.status, s.interval, s.gateway, majorUnits(s.amount), s.currency,
        s.customer?.name ?? null, s.customer?.email ?? null, s.nextBillingAt, s.cancelAtPeriodEnd, s.canceledAt, s.gatewayRef, s.createdAt, s.updatedAt,
      ];
      chunk += csvLine(cells);
    }
    if (chunk) await write(chunk);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
}
