/**
 * The orders the dashboard's payments and subscriptions lists come in, and
 * keyset paging under each. Every order ends with the id, so rows with an
 * equal key (same instant, same amount) still have one place and a page
 * never repeats or skips one. A cursor names the order it was handed out
 * for: used with another order it is refused, never read as a wrong position.
 */
import { decodeCursor, keysetAfter, type Position } from './cursor';

export const LIST_SORTS = ['created_desc', 'created_asc', 'amount_desc', 'amount_asc'] as const;
export type ListSort = (typeof LIST_SORTS)[number];
export const DEFAULT_SORT: ListSort = 'created_desc';

export interface Sortable {
  id: string;
  createdAt: Date;
  amount: number;
}

const byAmount = (sort: ListSort) => sort === 'amount_asc' || sort === 'amount_desc';
const direction = (sort: ListSort): 'asc' | 'desc' => (sort.endsWith('_asc') ? 'asc' : 'desc');

/** The ORDER BY of a sort: its key, then the id in the same direction. */
export function orderOf(sort: ListSort) {
  const dir = direction(sort);
  return byAmount(sort) ? { amount: dir, id: dir } : { createdAt: dir, id: dir };
}

/** Where a row sits in a sort: the cursor's key. */
export const positionIn =
  (sort: ListSort) =>
  (row: Sortable): Position => ({ key: byAmount(sort) ? String(row.amount) : row.createdAt.toISOString(), id: row.id });

/** Compares two rows as `sort` orders them (rows read by several queries, merged into one page). */
export const compareIn = (sort: ListSort) => (a: Sortable, b: Sortable): number => {
  const key = byAmount(sort) ? a.amount - b.amount : a.createdAt.getTime() - b.createdAt.getTime();
  const order = key !== 0 ? key : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  return direction(sort) === 'asc' ? order : -order;
};

/** Rows strictly after the cursor's row in `sort`; a cursor of another list or another sort is refused. */
export function afterCursor(list: string, sort: ListSort, cursor: string | undefined) {
  if (!cursor) return null;
  const position = decodeCursor(list, cursor, byAmount(sort) ? 'integer' : 'instant', sort);
  return keysetAfter(byAmount(sort) ? 'amount' : 'createdAt', direction(sort), byAmount(sort) ? Number(position.key) : new Date(position.key), position.id);
}
