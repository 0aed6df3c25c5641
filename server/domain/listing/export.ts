/**
 * The CSV exports of the dashboard's payments and subscriptions lists: the
 * same filter and order as the list (the list's own query, page-query.ts),
 * read from the database a batch at a time by its keyset paging (so every
 * row comes once, whatever rows are added meanwhile), each batch written out
 * before the next is read. Nothing holds the whole file: at most one batch
 * of rows is in memory.
 *
 * A batch is read as plain rows of the CSV's columns, not as entities: at
 * volume, hydrating every row as a MikroORM entity (its setters, its change
 * tracking, the contract's view) was most of an export's CPU and garbage,
 * and starved the event loop the money path shares (issue 39). Between
 * batches the export yields to the event loop, so requests that arrived
 * while a batch was read and written are served before the next one.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { EntityManager } from '../../db/orm';
import { paymentListQuery, type PaymentFilter } from '../payments/listing';
import { subscriptionListQuery, type SubscriptionFilter } from '../subscriptions/listing';
import { csvLine, majorUnits } from './csv';
import { listPlainPage, type ListQuery } from './page-query';
import type { Sortable } from './sort';

/** Rows read per query: big enough that 5,000 rows are ten queries, small enough to hold. */
export const EXPORT_BATCH = 100;

type Cells = (string | number | boolean | null)[];

export const PAYMENT_COLUMNS = [
  'id', 'externalId', 'status', 'method', 'gateway', 'amount', 'amountRefunded', 'currency',
  'customerName', 'customerEmail', 'cardBrand', 'cardLast4', 'subscriptionId', 'gatewayRef', 'createdAt', 'paidAt', 'updatedAt',
] as const;

export const SUBSCRIPTION_COLUMNS = [
  'id', 'externalId', 'status', 'interval', 'gateway', 'amount', 'currency',
  'customerName', 'customerEmail', 'nextBillingAt', 'cancelAtPeriodEnd', 'canceledAt', 'gatewayRef', 'createdAt', 'updatedAt',
] as const;

/** Instants as the list shows them (ISO, UTC), null as an empty cell. */
const instant = (at: Date | null | undefined): string | null => at?.toISOString() ?? null;

/** The payment columns read, as the entity names them. */
const PAYMENT_FIELDS = [
  'id', 'externalId', 'status', 'method', 'gateway', 'amount', 'amountRefunded', 'customerName', 'customerEmail',
  'cardBrand', 'cardLast4', 'subscriptionId', 'gatewayRef', 'createdAt', 'paidAt', 'updatedAt',
] as const;

interface PaymentLine extends Sortable {
  externalId: string; status: string; method: string; gateway: string; amountRefunded: number;
  customerName?: string | null; customerEmail?: string | null; cardBrand?: string | null; cardLast4?: string | null;
  subscriptionId?: string | null; gatewayRef?: string | null; paidAt?: Date | null; updatedAt: Date;
}

/** A payment's cells, as the list's row (payments/view.ts) shows them: a card only with both its brand and last digits, BRL the one currency. */
const paymentCells = (p: PaymentLine): Cells => [
  p.id, p.externalId, p.status, p.method, p.gateway, majorUnits(p.amount), majorUnits(p.amountRefunded), 'BRL',
  p.customerName ?? null, p.customerEmail ?? null, p.cardBrand && p.cardLast4 ? p.cardBrand : null, p.cardBrand && p.cardLast4 ? p.cardLast4 : null,
  p.subscriptionId ?? null, p.gatewayRef ?? null, instant(p.createdAt), instant(p.paidAt), instant(p.updatedAt),
];

const SUBSCRIPTION_FIELDS = [
  'id', 'externalId', 'status', 'interval', 'gateway', 'amount', 'customerName', 'customerEmail',
  'nextBillingAt', 'cancelAtPeriodEnd', 'canceledAt', 'gatewayRef', 'createdAt', 'updatedAt',
] as const;

interface SubscriptionLine extends Sortable {
  externalId: string; status: string; interval: string; gateway: string; customerName?: string | null; customerEmail?: string | null;
  nextBillingAt?: Date | null; cancelAtPeriodEnd: boolean; canceledAt?: Date | null; gatewayRef?: string | null; updatedAt: Date;
}

/** A subscription's cells, as subscriptions/view.ts shows it: a canceled one has no next billing, whatever its row still holds. */
const subscriptionCells = (s: SubscriptionLine): Cells => [
  s.id, s.externalId, s.status, s.interval, s.gateway, majorUnits(s.amount), 'BRL',
  s.customerName ?? null, s.customerEmail ?? null, s.status === 'canceled' ? null : instant(s.nextBillingAt), s.cancelAtPeriodEnd, instant(s.canceledAt),
  s.gatewayRef ?? null, instant(s.createdAt), instant(s.updatedAt),
];

/**
 * Writes the header, then every row the list's query matches, through
 * `write`, which resolves once the receiver can take more (backpressure).
 * `fork` gives an entity manager per batch (a replica's, where there are any).
 */
async function exportList<Entity extends Sortable, Line extends Sortable>(
  fork: () => EntityManager,
  queryOf: (cursor: string | undefined) => ListQuery<Entity>,
  fields: readonly string[],
  header: readonly string[],
  cells: (line: Line) => Cells,
  write: (chunk: string) => Promise<void>,
) {
  await write(csvLine([...header]));
  let cursor: string | undefined;
  do {
    const em = fork();
    const page = await listPlainPage<Entity, Line>(em, queryOf(cursor), fields);
    let chunk = '';
    for (const line of page.rows) chunk += csvLine(cells(line));
    if (chunk) await write(chunk);
    cursor = page.nextCursor ?? undefined;
    // The socket may take the chunk at once (a fast reader): the loop still gets its turn before the next batch.
    if (cursor) await nextTurn();
  } while (cursor);
}

export async function exportPayments(fork: () => EntityManager, filter: Omit<PaymentFilter, 'cursor' | 'limit'>, write: (chunk: string) => Promise<void>) {
  await exportList(fork, (cursor) => paymentListQuery({ ...filter, cursor, limit: EXPORT_BATCH }), PAYMENT_FIELDS, PAYMENT_COLUMNS, paymentCells, write);
}

export async function exportSubscriptions(fork: () => EntityManager, filter: Omit<SubscriptionFilter, 'cursor' | 'limit'>, write: (chunk: string) => Promise<void>) {
  await exportList(fork, (cursor) => subscriptionListQuery({ ...filter, cursor, limit: EXPORT_BATCH }), SUBSCRIPTION_FIELDS, SUBSCRIPTION_COLUMNS, subscriptionCells, write);
}
