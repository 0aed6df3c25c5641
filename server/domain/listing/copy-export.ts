/**
 * The CSV export on PostgreSQL: PostgreSQL writes the CSV itself, with
 * `COPY (<the list's select>) TO STDOUT (FORMAT csv, HEADER)`, and its bytes
 * go to the download as they come (pg-copy-streams), with the response's
 * backpressure: when the browser reads slowly, the socket to PostgreSQL is
 * not read and PostgreSQL waits. No row becomes a JavaScript object or
 * string, so the service's memory stays flat at any size (issue 39: the
 * batched reader's per-row garbage grew V8's heap by 150-250 MB at 200,000
 * rows), and the event loop only moves buffers.
 *
 * Why COPY and not a server-side cursor: a cursor still hands rows to the
 * driver one by one, each parsed into an object and formatted in
 * JavaScript, which is the garbage being removed. COPY takes no bind
 * parameters, so the list's own query (its conditions, search forms and
 * order, page-query.ts) is built by the query builder as for the list and
 * each binding is written into the text as a literal by the pg driver's
 * escapeLiteral (libpq's escaping: quotes doubled, an E'' string where there
 * is a backslash); no value reaches the text any other way.
 *
 * One connection is checked out for the export and always given back: as it
 * is at the end; destroyed when the export stops early (the browser went
 * away, an error), after asking PostgreSQL to cancel the COPY, so no COPY
 * runs on for nobody and no half-read COPY is handed to the next query.
 */
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import pg, { type Pool, type PoolClient } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { EntityManager } from '../../db/orm';
import { crlfLineEnds } from './crlf';
import { sqlCell } from './csv';
import { listWheres, type ListQuery } from './page-query';
import { orderOf, type Sortable } from './sort';

/** A column of the file: its header and its cell as a text expression of the row's columns (`column(property)`). */
export interface SqlColumn {
  name: string;
  sql: (column: (property: string) => string) => string;
}

/** Where the file goes: `write` resolves once the receiver takes more; `signal` aborts when it went away. */
export interface ExportOutput {
  write(chunk: string | Buffer): Promise<void>;
  signal: AbortSignal;
}

/** A binding as an SQL literal, by the driver's escaping. Only the types the list's conditions bind are accepted. */
function literal(value: unknown): string {
  if (value === null) return 'null';
  if (value instanceof Date) return pg.escapeLiteral(value.toISOString());
  if (typeof value === 'string') return pg.escapeLiteral(value);
  if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'bigint' || typeof value === 'boolean') return pg.escapeLiteral(String(value));
  throw new Error(`the export cannot write a binding of type ${typeof value} into its COPY`);
}

/**
 * The query builder's SQL with its `?` bindings written in as literals (`\?` is a question mark it escaped).
 * Exported for its tests.
 */
export function inlineBindings(sql: string, params: readonly unknown[]): string {
  let out = '';
  let next = 0;
  let from = 0;
  for (let at = sql.indexOf('?'); at >= 0; at = sql.indexOf('?', at + 1)) {
    if (sql[at - 1] === '\\') {
      out += `${sql.slice(from, at - 1)}?`;
    } else {
      if (sql[at + 1] === '?') throw new Error('the export cannot write an identifier binding into its COPY');
      if (next >= params.length) throw new Error('the export query has more placeholders than bindings');
      out += sql.slice(from, at) + literal(params[next++]);
    }
    from = at + 1;
  }
  if (next !== params.length) throw new Error('the export query has more bindings than placeholders');
  return out + sql.slice(from);
}

/**
 * The COPY of a list: each of its wheres (one, or one per search form) selects the columns the cells read; a row
 * several forms match is one row of their union (as the list merges them); the whole is in the list's order.
 */
export function copyStatement<Entity extends Sortable>(em: EntityManager, query: ListQuery<Entity>, columns: readonly SqlColumn[]): { text: string; selects: number } {
  const meta = em.getMetadata().get(query.entity);
  const columnOf = (property: string): string => {
    const field = meta.properties[property as keyof typeof meta.properties]?.fieldNames?.[0];
    if (!field) throw new Error(`no column for ${property}`);
    return field;
  };
  // The properties the cells and the order read: what each where selects.
  const read = new Set<string>(['id', ...Object.keys(orderOf(query.sort))]);
  const column = (property: string): string => {
    read.add(property);
    return `e.${pg.escapeIdentifier(columnOf(property))}`;
  };
  const cells = columns.map((each) => `${sqlCell(each.sql(column))} as ${pg.escapeIdentifier(each.name)}`);
  const order = Object.entries(orderOf(query.sort)).map(([property, dir]) => `${column(property)} ${dir}`);
  const selects = listWheres(query).map((where) => {
    const qb = em.createQueryBuilder(query.entity, 'e0').select([...read] as never).where(where as never);
    return inlineBindings(qb.getQuery(), qb.getParams());
  });
  return { text: `copy (select ${cells.join(', ')} from (${selects.join(' union ')}) as e order by ${order.join(', ')}) to stdout with (format csv, header)`, selects: selects.length };
}

/** The pg pool the entity manager reads from: a replica's where there are any (Database.forReads), else the primary's. */
async function readPool(em: EntityManager): Promise<Pool> {
  const connection = em.getConnection('read') as unknown as { getNativeClient(): Promise<Pool> };
  return connection.getNativeClient();
}

/** Writes each chunk through `write`, one at a time: its promise is the backpressure. */
const sinkOf = (write: (chunk: Buffer) => Promise<void>) =>
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      write(chunk).then(() => done(), done);
    },
  });

/** Stops the COPY on the server (best effort, from another connection): a socket closed under it is noticed only at its next write. */
async function cancel(pool: Pool, client: PoolClient): Promise<void> {
  const pid = (client as unknown as { processID?: number }).processID;
  if (pid) await pool.query('select pg_cancel_backend($1)', [pid]).catch(() => undefined);
}

/** Streams the list's CSV from PostgreSQL to `out`; resolves when all of it was written, rejects when it stopped. */
export async function copyExport<Entity extends Sortable>(em: EntityManager, query: ListQuery<Entity>, columns: readonly SqlColumn[], out: ExportOutput): Promise<void> {
  const statement = copyStatement(em, query, columns);
  const pool = await readPool(em);
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    // A COPY is planned for its whole result, with no cursor's fast start: PostgreSQL may then prefer reading the
    // environment whole and sorting it, which sends nothing until the sort ends (seconds at millions of rows) and
    // spills it to disk. Without a search, sorting is made its last resort for this transaction only, so the order's
    // index is walked and the first rows go at once. A search's union of forms is left to the planner: each form's
    // own index finds its rows, which are then sorted (forbidding the sort would walk the environment once per form).
    await client.query('begin read only');
    // A COPY of a whole environment is costed in millions, past the thresholds at which PostgreSQL compiles its
    // expressions (JIT, with inlining and optimization): for the CSV's cells that took 0.5-1 s before the first row
    // at 2M payments, and saves nothing on a read bounded by the disk and the socket.
    await client.query('set local jit = off');
    if (statement.selects === 1) await client.query('set local enable_sort = off');
    await pipeline(client.query(copyTo(statement.text)), crlfLineEnds(), sinkOf(out.write), { signal: out.signal });
    await client.query('commit');
  } catch (error) {
    failure = error instanceof Error ? error : new Error(String(error));
    await cancel(pool, client);
    throw error;
  } finally {
    // With an error, pg-pool ends the connection instead of pooling it (a COPY may still be under way on it).
    client.release(failure ?? undefined);
  }
}
