/**
 * A filtered, paginated list as a table: why the filter is refused, how many
 * rows it matches (where the list counts them), the load states, the rows,
 * then "Load more". A column given with `sort` has a header that orders the
 * list (sort-header.tsx). On a phone, a list given `compact` shows each item
 * as that instead (parts/CompactRow.tsx): one tappable row, no sideways scroll.
 */
import { Alert, Box, Card, Table, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import type { FilteredPages } from './filtered-pages';
import { Loaded } from './Loaded';
import { LoadMore } from './paged';
import { SortHeader, type SortKey } from './sort-header';
import { useIsPhone } from './phone';

export type Column = string | { label: string; sort: SortKey };

export function PagedTable<Item>({
  list,
  empty,
  label,
  columns,
  minWidth,
  row,
  compact,
  noun,
}: {
  list: FilteredPages<Item>;
  /** What an empty list says. */
  empty: string;
  label: string;
  columns: Column[];
  minWidth: number;
  row: (item: Item) => ReactNode;
  /** How an item reads on a phone, instead of its table row. */
  compact?: (item: Item) => ReactNode;
  /** Singular and plural of what is counted (`['payment', 'payments']`), for "5,000 payments" (or "10,000+ payments") above the table. */
  noun?: [string, string];
}) {
  const total = list.total;
  const phone = useIsPhone();
  return (
    <>
      {list.filter === null && <Alert color="orange">{list.filterProblem}</Alert>}
      {noun && typeof total === 'number' && (
        <Text size="sm" c="dimmed" aria-live="polite" data-testid="list-total">
          {total.toLocaleString('en-US')}
          {list.totalIsLowerBound ? '+' : ''} {total === 1 && !list.totalIsLowerBound ? noun[0] : noun[1]}
        </Text>
      )}
      <Loaded error={list.error} data={list.items} loading={list.isPending && list.filter !== null} empty={empty}>
        {(items) =>
          phone && compact ? (
            <Card withBorder p={0}>
              <Box component="ul" aria-label={label} m={0} p={0} style={{ listStyle: 'none' }}>
                {items.map((item, index) => (
                  <Box component="li" key={index} style={index > 0 ? { borderTop: '1px solid var(--mantine-color-default-border)' } : undefined}>
                    {compact(item)}
                  </Box>
                ))}
              </Box>
            </Card>
          ) : (
            <Card withBorder p={0}>
              <Table.ScrollContainer minWidth={minWidth}>
                <Table striped highlightOnHover verticalSpacing="xs" aria-label={label}>
                  <Table.Thead>
                    <Table.Tr>
                      {columns.map((column) =>
                        typeof column === 'string' ? <Table.Th key={column}>{column}</Table.Th> : <SortHeader key={column.label} label={column.label} by={column.sort} />,
                      )}
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>{items.map(row)}</Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            </Card>
          )
        }
      </Loaded>
      <LoadMore query={list} />
    </>
  );
}
