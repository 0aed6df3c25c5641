/**
 * How many rows a list's filter matches, as decision 25 has it: exact up to
 * EXACT_COUNT_LIMIT, above that only "more than" (a flag, not a number). The count
 * runs over a subquery limited to EXACT_COUNT_LIMIT + 1 rows, so it reads at most
 * that many index entries or rows whatever the table holds; a plain
 * `count(*)` of a busy environment's payments reads millions.
 */
import type { EntityName, FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '../../db/orm';
/** Decision 25: counts are exact up to this many (lists' totals, the overview's and reconciliation's counts); above, "10,000+". */
export const EXACT_COUNT_LIMIT = 10_000;

/** A list's total: exact, or EXACT_COUNT_LIMIT with `totalIsLowerBound` when more rows match. */
export interface ListTotal {
  total: number;
  totalIsLowerBound: boolean;
}

/**
 * The rows any of `wheres` matches (a search's forms, search.ts: a row
 * matched by two counts once), each where limited to EXACT_COUNT_LIMIT + 1 rows, so
 * each is served by its own index and stops there. `orderBy`, an order an
 * index of the filter has (page-query.ts passes newest first): read in it,
 * the rows come from that index
 * (where an environment is most of the table, the planner would otherwise
 * read the first EXACT_COUNT_LIMIT + 1 rows of the table itself, a sequential scan
 * that is only bounded while that stays so). A search's forms are counted
 * unordered: each has its own index, whose order is not the list's.
 */
export async function cappedTotal<Entity extends object>(em: EntityManager, entity: EntityName<Entity>, wheres: FilterQuery<Entity>[], orderBy?: object): Promise<ListTotal> {
  const parts = wheres.map((where) => {
    const part = em.createQueryBuilder(entity, 'e0').select('e0.id' as never).where(where as never).limit(EXACT_COUNT_LIMIT + 1);
    return orderBy ? part.orderBy(orderBy as never) : part;
  });
  const union = parts.map((part) => `(${part.getQuery()})`).join(' union ');
  const [row] = await em.execute<{ n: number }[]>(`select count(*)::int as n from (${union}) as matches`, parts.flatMap((part) => [...part.getParams()]));
  const counted = Number(row?.n ?? 0);
  return { total: Math.min(counted, EXACT_COUNT_LIMIT), totalIsLowerBound: counted > EXACT_COUNT_LIMIT };
}
