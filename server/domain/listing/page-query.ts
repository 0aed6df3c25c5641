/**
 * One page of a dashboard list (payments, subscriptions) and its total, each
 * read bounded by the page, not by the table. Without a search: one query in
 * the sort's index order, limit page + 1. With a search: one such query per
 * search form (search.ts), each served by its own index and limited to the
 * page, merged here in the sort's order; the total counts the union of the
 * forms, each form limited to what the total can show (total.ts).
 */
import type { EntityName, FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '../../db/orm';
import { pageOf } from './cursor';
import { NEWEST_FIRST } from './filters';
import { searchForms, type SearchedList } from './search';
import { afterCursor, compareIn, orderOf, positionIn, type ListSort, type Sortable } from './sort';
import { cappedTotal, type ListTotal } from './total';

export interface ListQuery<Entity> {
  entity: EntityName<Entity>;
  /** The list's name in its cursors. */
  list: string;
  /**
   * The filter's conditions but the search and the page's position, built
   * afresh for each query: a `raw()` key of MikroORM serves one query only.
   */
  conditions: () => FilterQuery<Entity>[];
  search?: string;
  /** Whose search forms the search is read by (search.ts): payments have support's. */
  searchIn?: SearchedList;
  sort: ListSort;
  cursor?: string;
  limit: number;
}

/** Every query's conditions: the filter's and, with a search, one form each (null: no search). */
function wheres<Entity>(query: ListQuery<Entity>, extra: () => FilterQuery<Entity>[]): FilterQuery<Entity>[] {
  const forms = searchForms(query.search, query.searchIn);
  if (!forms) return [{ $and: [...query.conditions(), ...extra()] } as FilterQuery<Entity>];
  return forms.map((_, i) => ({ $and: [...query.conditions(), searchForms(query.search, query.searchIn)![i], ...extra()] }) as FilterQuery<Entity>);
}

/** The wheres of the whole list (no page position): what the CSV export's COPY selects (listing/copy-export.ts). */
export const listWheres = <Entity>(query: ListQuery<Entity>): FilterQuery<Entity>[] => wheres(query, () => []);

/**
 * The rows of the page (with the one after it, which tells there is a next
 * page), in the sort's order. `read` runs one where in the sort's order,
 * limited to the page and the row after it: as entities (the lists) or as
 * plain rows (the export); either way the conditions, cursor and order are
 * these.
 */
async function pageRows<Entity extends Sortable, Row extends Sortable>(query: ListQuery<Entity>, read: (where: FilterQuery<Entity>, orderBy: object, limit: number) => Promise<Row[]>): Promise<Row[]> {
  const after = () => {
    const condition = afterCursor(query.list, query.sort, query.cursor);
    return condition ? [condition as FilterQuery<Entity>] : [];
  };
  const found = new Map<string, Row>();
  // One form at a time: a row matched by two forms is one row of the page.
  for (const where of wheres(query, after)) {
    for (const row of await read(where, orderOf(query.sort), query.limit + 1)) found.set(row.id, row);
  }
  return [...found.values()].sort(compareIn(query.sort)).slice(0, query.limit + 1);
}

/** A where read as the list's entities (they share the entity manager: its identity map makes a row matched twice one entity). */
const entities =
  <Entity extends Sortable>(em: EntityManager, entity: EntityName<Entity>) =>
  (where: FilterQuery<Entity>, orderBy: object, limit: number): Promise<Entity[]> =>
    em.find(entity, where, { orderBy: orderBy as never, limit }) as Promise<Entity[]>;

/**
 * A page of the list as plain rows of `fields` (property names; id,
 * createdAt and amount always among them, the cursor's keys), with the
 * cursor of the next page: what the CSV export reads. No entity is made, so
 * nothing is tracked for a flush and nothing piles up in an identity map;
 * the query builder maps column names to properties and values to their
 * types (a Date for a timestamp, a number for a bigint one).
 */
export async function listPlainPage<Entity extends Sortable, Row extends Sortable>(em: EntityManager, query: ListQuery<Entity>, fields: readonly string[]): Promise<{ rows: Row[]; nextCursor: string | null }> {
  const read = (where: FilterQuery<Entity>, orderBy: object, limit: number): Promise<Row[]> =>
    em.createQueryBuilder(query.entity, 'e0').select(fields as never).where(where as never).orderBy(orderBy as never).limit(limit).execute('all', true) as Promise<Row[]>;
  const page = pageOf(query.list, await pageRows(query, read), query.limit, positionIn(query.sort), (row) => row, query.sort);
  return { rows: page.items, nextCursor: page.nextCursor };
}

/**
 * A page in the order asked, mapped by `view`. The first page (no cursor)
 * also carries the total the filter matches (total.ts); later pages carry
 * null, as does a caller that asks for no total (the CSV export).
 */
export async function listPage<Entity extends Sortable, Item>(em: EntityManager, query: ListQuery<Entity>, view: (row: Entity) => Item, options: { total?: boolean } = {}) {
  const rows = await pageRows(query, entities(em, query.entity));
  // Counted newest first whatever the page's sort: a count has no order of its own, and in creation order each filter's
  // index serves it ((environment, [status, [method,]] created_at, id)), where in amount order a status is a filter on
  // the amount index's rows, read 10,001 / its share of them.
  const counted: ListTotal | null = query.cursor || options.total === false ? null : await cappedTotal(em, query.entity, wheres(query, () => []), query.search?.trim() ? undefined : NEWEST_FIRST);
  return {
    ...pageOf(query.list, rows, query.limit, positionIn(query.sort), view, query.sort),
    total: counted?.total ?? null,
    totalIsLowerBound: counted?.totalIsLowerBound ?? false,
  };
}
