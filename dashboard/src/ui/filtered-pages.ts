/** A paginated list whose filter (from the address) is first checked with the call's own schema: a refused filter fetches nothing. */
import type { QueryKey } from '@tanstack/react-query';
import type { z } from 'zod';
import { usePaged, type Page } from './paged';

export function useFilteredPages<Filter, Item>(
  schema: z.ZodType<Filter>,
  values: unknown,
  queryKey: QueryKey,
  fetchPage: (filter: Filter, cursor: string | undefined) => Promise<Page<Item>>,
) {
  const parsed = schema.safeParse(values);
  const filter = parsed.success ? parsed.data : null;
  const list = usePaged([...queryKey, filter], (cursor) => fetchPage(filter!, cursor), filter !== null);
  /**
   * How many rows the whole filter matches, where the list counts them (its
   * first page says): exact, or with `totalIsLowerBound` at least that many
   * (decision 25: lists count up to 10,000).
   */
  const total = list.data?.pages[0]?.total ?? null;
  const totalIsLowerBound = list.data?.pages[0]?.totalIsLowerBound ?? false;
  return { ...list, filter, total, totalIsLowerBound, filterProblem: parsed.error?.issues[0]?.message };
}

export type FilteredPages<Item> = ReturnType<typeof useFilteredPages<unknown, Item>>;
