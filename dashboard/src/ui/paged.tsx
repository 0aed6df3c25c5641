/**
 * Cursor-paginated lists: one page at a time from the service, "Load more"
 * appends the next one. A page is at most a hundred rows, so the table
 * never holds more than what the person asked to see.
 */
import { Button, Center, Text } from '@mantine/core';
import { useInfiniteQuery, type QueryKey } from '@tanstack/react-query';

/** A page; `total`, where the list counts, is how many rows the whole filter matches (at least, with `totalIsLowerBound`). */
export interface Page<Item> {
  items: Item[];
  nextCursor: string | null;
  total?: number | null;
  totalIsLowerBound?: boolean;
}

export function usePaged<Item>(
  queryKey: QueryKey,
  fetchPage: (cursor: string | undefined) => Promise<Page<Item>>,
  enabled = true,
) {
  const query = useInfiniteQuery({
    queryKey,
    queryFn: ({ pageParam }) => fetchPage(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    enabled,
  });
  const items = query.data?.pages.flatMap((page) => page.items) ?? [];
  return { ...query, items };
}

export function LoadMore({ query }: { query: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => unknown; items: unknown[] } }) {
  return (
    <Center py="sm">
      {query.hasNextPage ? (
        <Button variant="default" loading={query.isFetchingNextPage} onClick={() => query.fetchNextPage()}>
          Load more
        </Button>
      ) : (
        query.items.length > 0 && (
          <Text size="sm" c="dimmed">
            {query.items.length} shown — that is all.
          </Text>
        )
      )}
    </Center>
  );
}
