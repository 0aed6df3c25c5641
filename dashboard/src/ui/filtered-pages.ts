/** A paginated list whose filter (from the address) is first checked with the call's own schema: a refused filter fetches nothing. */
import type { QueryKey } from '@tanstack/react-query';
import type { z } from 'zod';
import { usePaged } from './paged';

export function useFilteredPages<Filter, Item>(
  schema: z.ZodType<Filter>,
  values: unknown,
  queryKey: QueryKey,
  fetchPage: (filter: Filter, cursor: string | undefined) => Promise<{ items: Item[]; nextCursor: string | null; total?: number | null }>,
) {
  const parsed = schema.safeParse(values);
  const filter = parsed.success ? parsed.data : null;
  const list = usePaged([...queryKey, filter], (cursor) => fetchPage(filter!, cursor), filter !== null);
  /** How many rows the whole filter matches, where the list counts them (its first page says). */
  const total = list.data?.pages[0]?.total ?? null;
  return { ...list, filter, total, filterProblem: parsed.error?.issues[0]?.message };
}

export type FilteredPages<Item> = ReturnType<typeof useFilteredPages<unknown, Item>>;
