/**
 * The CSV exports of the dashboard's payments and subscriptions lists: the
 * same filter, search and order as the list (the list's own query,
 * page-query.ts), every matching row once, streamed with the receiver's
 * backpressure so nothing holds the whole file. Each column is defined once
 * here, with its cell written both ways: by PostgreSQL in SQL (the COPY of
 * copy-export.ts) and in JavaScript (PGlite's batches); csv.ts makes the two
 * write the same bytes.
 *
 * Why two ways (issue 39): formatting every row in JavaScript, even from
 * plain rows, made garbage per row that grew the service's heap by 150-250
 * MB over 200,000 rows before V8 collected it. On PostgreSQL only the COPY's
 * buffers pass through the service. PGlite, embedded in the process at demo
 * volume, keeps the batches.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Database } from '../../db/orm';
import { paymentListQuery, type PaymentFilter } from '../payments/listing';
import { subscriptionListQuery, type SubscriptionFilter } from '../subscriptions/listing';
import { copyExport, type ExportOutput, type SqlColumn } from './copy-export';
import { csvLine, majorUnits, sqlInstant, sqlMajorUnits } from './csv';
import { listPlainPage, type ListQuery } from './page-query';
import type { Sortable } from './sort';

/** Rows read per query on PGlite: big enough that 5,000 rows are fifty queries, small enough to hold. */
export const EXPORT_BATCH = 100;

type Cell = string | number | boolean | null;
type Line = Sortable & Record<string, unknown>;

/** A column of the file, written either way: `cell` from a row read in JavaScript, `sql` by PostgreSQL (csv.ts makes them equal). */
interface ExportColumn extends SqlColumn {
  cell: (line: Line) => Cell;
}

/** Text (or a boolean) as it is. */
const asIs = (name: string): ExportColumn => ({ name, cell: (line) => (line[name] as Cell | undefined) ?? null, sql: (column) => `${column(name)}::text` });
/** Cents in major units. */
const money = (name: string): ExportColumn => ({ name, cell: (line) => majorUnits(line[name] as number), sql: (column) => sqlMajorUnits(column(name)) });
/** Instants as the list shows them (ISO, UTC), null as an empty cell. */
const instant = (name: string): ExportColumn => ({
  name,
  cell: (line) => (line[name] as Date | null | undefined)?.toISOString() ?? null,
  sql: (column) => sqlInstant(column(name)),
});
/** BRL, the one currency. */
const brl: ExportColumn = { name: 'currency', cell: () => 'BRL', sql: () => `'BRL'` };
/** A card's brand or last digits, only with both (as payments/view.ts shows a card). */
const card = (name: 'cardBrand' | 'cardLast4'): ExportColumn => ({
  name,
  cell: (line) => (line.cardBrand && line.cardLast4 ? (line[name] as string) : null),
  sql: (column) => `case when ${column('cardBrand')} <> '' and ${column('cardLast4')} <> '' then ${column(name)}::text end`,
});

const PAYMENT_EXPORT: readonly ExportColumn[] = [
  asIs('id'), asIs('externalId'), asIs('status'), asIs('method'), asIs('gateway'), money('amount'), money('amountRefunded'), brl,
  asIs('customerName'), asIs('customerEmail'), card('cardBrand'), card('cardLast4'), asIs('subscriptionId'), asIs('gatewayRef'),
  instant('createdAt'), instant('paidAt'), instant('updatedAt'),
];

/** A canceled subscription has no next billing, whatever its row still holds (as subscriptions/view.ts shows it). */
const nextBilling: ExportColumn = {
  name: 'nextBillingAt',
  cell: (line) => (line.status === 'canceled' ? null : instant('nextBillingAt').cell(line)),
  sql: (column) => `case when ${column('status')} <> 'canceled' then ${sqlInstant(column('nextBillingAt'))} end`,
};

const SUBSCRIPTION_EXPORT: readonly ExportColumn[] = [
  asIs('id'), asIs('externalId'), asIs('status'), asIs('interval'), asIs('gateway'), money('amount'), brl,
  asIs('customerName'), asIs('customerEmail'), nextBilling, asIs('cancelAtPeriodEnd'), instant('canceledAt'),
  asIs('gatewayRef'), instant('createdAt'), instant('updatedAt'),
];

/** The header of each file. */
export const PAYMENT_COLUMNS = PAYMENT_EXPORT.map((column) => column.name);
export const SUBSCRIPTION_COLUMNS = SUBSCRIPTION_EXPORT.map((column) => column.name);

/** The payment properties a PGlite batch reads, as the entity names them. */
const PAYMENT_FIELDS = [
  'id', 'externalId', 'status', 'method', 'gateway', 'amount', 'amountRefunded', 'customerName', 'customerEmail',
  'cardBrand', 'cardLast4', 'subscriptionId', 'gatewayRef', 'createdAt', 'paidAt', 'updatedAt',
] as const;

const SUBSCRIPTION_FIELDS = [
  'id', 'externalId', 'status', 'interval', 'gateway', 'amount', 'customerName', 'customerEmail',
  'nextBillingAt', 'cancelAtPeriodEnd', 'canceledAt', 'gatewayRef', 'createdAt', 'updatedAt',
] as const;

/** A list's export: its query (from a cursor, for a page), the properties a batch reads, the file's columns. */
interface ListExport<Entity extends Sortable> {
  queryOf: (cursor: string | undefined, limit: number) => ListQuery<Entity>;
  fields: readonly string[];
  columns: readonly ExportColumn[];
}

/**
 * PGlite's path (embedded, demo volume): the header, then every row the
 * list's query matches, read a batch at a time by its keyset paging (so every
 * row comes once, whatever rows are added meanwhile) as plain rows, not
 * entities, formatted here, each batch written before the next is read.
 * Between batches the export yields to the event loop, so requests that
 * arrived while a batch was read and written are served before the next one.
 */
async function batchedExport<Entity extends Sortable>(db: Database, { queryOf, fields, columns }: ListExport<Entity>, out: ExportOutput) {
  await out.write(csvLine(columns.map((column) => column.name)));
  let cursor: string | undefined;
  do {
    const page = await listPlainPage<Entity, Line>(db.forReads(db.fork()), queryOf(cursor, EXPORT_BATCH), fields);
    let chunk = '';
    for (const line of page.rows) chunk += csvLine(columns.map((column) => column.cell(line)));
    if (chunk) await out.write(chunk);
    cursor = page.nextCursor ?? undefined;
    // The socket may take the chunk at once (a fast reader): the loop still gets its turn before the next batch.
    if (cursor) await nextTurn();
  } while (cursor && !out.signal.aborted);
}

/**
 * The CSV of a list with exactly its filter, search and order, to `out`,
 * which resolves each write once the receiver takes more (backpressure);
 * rejects when the export stopped (`out.signal` aborted: the receiver went
 * away). Reads go where the dashboard's reads go (Database.forReads: a
 * replica where there are any). On PostgreSQL, PostgreSQL writes the CSV and
 * its bytes are streamed (copy-export.ts), in constant memory at any size;
 * on PGlite the rows are read in batches and formatted here. Both write the
 * same bytes (csv.ts).
 */
async function exportList<Entity extends Sortable>(db: Database, list: ListExport<Entity>, out: ExportOutput) {
  if (db.kind === 'postgresql') return copyExport(db.forReads(db.fork()), list.queryOf(undefined, 0), list.columns, out);
  return batchedExport(db, list, out);
}

export async function exportPayments(db: Database, filter: Omit<PaymentFilter, 'cursor' | 'limit'>, out: ExportOutput) {
  await exportList(db, { queryOf: (cursor, limit) => paymentListQuery({ ...filter, cursor, limit }), fields: PAYMENT_FIELDS, columns: PAYMENT_EXPORT }, out);
}

export async function exportSubscriptions(db: Database, filter: Omit<SubscriptionFilter, 'cursor' | 'limit'>, out: ExportOutput) {
  await exportList(db, { queryOf: (cursor, limit) => subscriptionListQuery({ ...filter, cursor, limit }), fields: SUBSCRIPTION_FIELDS, columns: SUBSCRIPTION_EXPORT }, out);
}
