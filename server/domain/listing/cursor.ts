/**
 * Opaque cursors of keyset pagination. A page ends at a row; the next page
 * starts strictly after that row's sort key, so rows added meanwhile never
 * shift a page (no duplicates, no skips), and ties on the first key (equal
 * `createdAt`) are broken by the id. The cursor is base64url JSON naming the
 * list it belongs to and that key: anything else given as a cursor (edited,
 * truncated, another list's) is refused as invalid input, never a failure.
 * A list with several orders (sort.ts) also names the order: a cursor of one
 * order given with another is refused with a message that says so.
 */
import { raises } from '../raises';
import { Refusal } from '../refusal';

/** The sort key of the last row of a page: a timestamp or sequence, then the id. */
export interface Position {
  /** ISO instant (lists by creation time) or an integer as text (lists by event sequence). */
  key: string;
  id: string;
}

export function encodeCursor(list: string, position: Position, sort?: string): string {
  return Buffer.from(JSON.stringify({ l: list, ...(sort ? { s: sort } : {}), k: position.key, i: position.id })).toString('base64url');
}

/** A forged cursor is the caller's mistake, at the `cursor` field: 400 invalid_input, never a query PostgreSQL would refuse. */
export const DECODE_CURSOR = raises(['invalid_input']);

const atCursor = (message: string) => new Refusal('invalid_input', { issues: [{ path: ['cursor'], message }] }, 'The cursor is not valid.');
const refused = () => atCursor('is not one this list handed out; start again from the first page');

/** Ids as the service writes them (`pay_…`, `aud_…`): no NUL byte or other text PostgreSQL or an index could choke on. */
const ID = /^[A-Za-z0-9_]{1,64}$/;
/** Integer keys (amounts, event sequences) within what a number holds exactly and a bigint column takes. */
const INTEGER = /^\d{1,15}$/;

/**
 * An instant exactly as `toISOString` wrote it for a row: a string that
 * reads back to itself (so no 30 February, no hour 24), in years a row can
 * have (PostgreSQL has no year 0; JavaScript has).
 */
function isRowInstant(key: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(key)) return false;
  const at = new Date(key);
  return !Number.isNaN(at.getTime()) && at.toISOString() === key && at.getUTCFullYear() >= 1970;
}

/**
 * The position a cursor holds. `sort`, for a list with several orders: the
 * order asked for now, which must be the one the cursor was handed out for
 * (a cursor without one was handed out for `created_desc`, the default).
 */
export function decodeCursor(list: string, cursor: string, key: 'instant' | 'integer', sort?: string): Position {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw refused();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw refused();
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw refused();
  const { l, s, k, i } = parsed as Record<string, unknown>;
  if (l === list && sort !== undefined && (s ?? 'created_desc') !== sort) {
    const given = s === undefined ? 'created_desc' : typeof s === 'string' && /^[a-z_]{1,32}$/.test(s) ? s : 'unknown';
    throw atCursor(`belongs to another sort order (${given}), not ${sort}; start again from the first page`);
  }
  if (l !== list || typeof k !== 'string' || typeof i !== 'string' || !ID.test(i)) throw refused();
  if (key === 'instant' ? !isRowInstant(k) : !INTEGER.test(k)) throw refused();
  return { key: k, id: i };
}

/**
 * Rows strictly after a position in an order by `field` then id, each `dir`:
 * `field` beyond the key, or equal to it with the id beyond. The first
 * condition (`field` up to the key, inclusive) says the same of `field`
 * alone, so PostgreSQL starts reading the (…, field, id) index at the
 * cursor's row: from the OR alone it reads every row before it and filters
 * them (a deep page of a big list read half the table).
 */
export function keysetAfter(field: string, dir: 'asc' | 'desc', key: Date | number, id: string) {
  const [beyond, reaching] = dir === 'asc' ? (['$gt', '$gte'] as const) : (['$lt', '$lte'] as const);
  return { $and: [{ [field]: { [reaching]: key } }, { $or: [{ [field]: { [beyond]: key } }, { [field]: key, id: { [beyond]: id } }] }] };
}

/**
 * One page out of `rows`, fetched with `limit + 1`: the extra row only tells
 * that a next page exists, whose cursor is the last row shown.
 */
export function pageOf<Row, Item>(list: string, rows: Row[], limit: number, position: (row: Row) => Position, view: (row: Row) => Item, sort?: string) {
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  return {
    items: shown.map(view),
    nextCursor: rows.length > limit && last ? encodeCursor(list, position(last), sort) : null,
  };
}
