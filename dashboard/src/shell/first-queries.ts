/**
 * The first list a page shows, asked for as soon as the session is known
 * (main.tsx), alongside the scope's lists rather than after them: the page
 * itself can only render once the layout has the scope, one round trip
 * later. Each entry asks exactly what the page asks first, under the same
 * query key, so the page finds it in the cache; the budget test fails if
 * the page asks again. Only the unfiltered list of an address without a
 * query string (a bookmark, a link from the navigation).
 */
import type { QueryClient } from '@tanstack/react-query';
import { matchPath } from 'react-router';
import { PaymentListInput } from '../../../server/contract/operator/listing';
import { api } from '../api/client';

/** The first page of a list, as ui/paged.tsx's usePaged keeps it. */
function prefetchFirstPage<Filter, Page>(queryClient: QueryClient, queryKey: readonly unknown[], filter: Filter, fetchPage: (filter: Filter) => Promise<Page>) {
  return queryClient.prefetchInfiniteQuery({
    queryKey: [...queryKey, filter],
    queryFn: () => fetchPage(filter),
    initialPageParam: undefined as string | undefined,
  });
}

export function prefetchPageQueries(queryClient: QueryClient, pathname: string, search: string): void {
  if (search.replace(/^\?/, '') !== '') return;
  const payments = matchPath('/e/:environmentId/payments', pathname);
  if (payments) {
    // pages/Payments.tsx: useFilteredPages(PaymentListInput, { environmentId, …filters }, ['payments', 'list'], …).
    const filter = PaymentListInput.safeParse({ environmentId: payments.params.environmentId });
    if (filter.success) void prefetchFirstPage(queryClient, ['payments', 'list'], filter.data, (f) => api.payments.list.query(f));
  }
}
