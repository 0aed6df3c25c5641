/** A filtered, paginated list as a table: why the filter is refused, the load states, the rows, then "Load more". */
import { Alert } from '@mantine/core';
import type { ReactNode } from 'react';
import { DataTable } from './DataTable';
import type { FilteredPages } from './filtered-pages';
import { Loaded } from './Loaded';
import { LoadMore } from './paged';

export function PagedTable<Item>({
  list,
  empty,
  label,
  columns,
  minWidth,
  row,
}: {
  list: FilteredPages<Item>;
  /** What an empty list says. */
  empty: string;
  label: string;
  columns: string[];
  minWidth: number;
  row: (item: Item) => ReactNode;
}) {
  return (
    <>
      {list.filter === null && <Alert color="orange">{list.filterProblem}</Alert>}
      <Loaded error={list.error} data={list.items} loading={list.isPending && list.filter !== null} empty={empty}>
        {(items) => (
          <DataTable label={label} columns={columns} minWidth={minWidth} striped highlightOnHover verticalSpacing="xs">
            {items.map(row)}
          </DataTable>
        )}
      </Loaded>
      <LoadMore query={list} />
    </>
  );
}
