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
import { operatorRefusal } from '../refusal';

/** The sort key of the last row of a page: a timestamp or sequence, then the id. */
export interface Position {
  /** ISO instant (lists by creation time) or an integer as text (lists by event sequence). */
  key: string;
  id: string;
}

export function encodeCursor(list: string, position: Position, sort?: string): string {
  return Buffer.from(JSON.stringify({ l: list, ...(sort ? { s: sort } : {}), k: position.key, i: position.id })).toString('base64url');
}

const refused = () => operatorRefusal('invalid', 'cursor is not one this list handed out; start again from the first page.');

/**
 * The position a cursor holds. `sort`, for a list with several orders: the
 * order asked for now, which must be the one the cursor was handed out for
 * (a cursor without one was handed out for `created_desc`, the default).
 */
export function decodeCursor(list: string, cursor: string, key: 'instant' | 'integer', sort?: string): Position {
  let parsed: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw refused();
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw refused();
  }
  const { l, s, k, i } = (parsed ?? {}) as Record<string, unknown>;
  if (l === list && sort !== undefined && (s ?? 'created_desc') !== sort) {
    throw operatorRefusal('invalid', `cursor belongs to another sort order (${typeof s === 'string' ? s.slice(0, 32) : 'created_desc'}), not ${sort}; start again from the first page.`);
  }
  if (l !== list || typeof k !== 'string' || typeof i !== 'string' || i.length === 0 || i.length > 64) throw refused();
  if (key === 'instant' && (!/^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/.test(k) || Number.isNaN(Date.parse(k)))) throw refused();
  if (key === 'integer' && !/^\d{1,18}$/.test(k)) throw refused();
  return { key: k, id: i };
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
