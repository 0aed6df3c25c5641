/**
 * Column headers that sort a list: the order lives in the address
 * (`?sort=amount_asc`, absent for the default, newest first) like the
 * filters, so a sorted list can be bookmarked and shared. A sortable header
 * is a button (Tab, Enter or Space) inside a cell whose `aria-sort` says how
 * the list is ordered now; the first activation orders descending (newest,
 * largest), the next one ascending.
 */
import { Table, UnstyledButton } from '@mantine/core';
import { LIST_SORTS } from '../../../server/contract/operator/listing';
import { useFilterParams } from './filters';

export type ListSort = (typeof LIST_SORTS)[number];
/** What a column sorts by. */
export type SortKey = 'created' | 'amount';

export const DEFAULT_SORT: ListSort = 'created_desc';

/** The order in the address, or the default when it names none this list knows. */
export function useSort(): { sort: ListSort; setSort: (sort: ListSort) => void } {
  const filters = useFilterParams();
  const asked = filters.get('sort');
  const sort = (LIST_SORTS as readonly string[]).includes(asked ?? '') ? (asked as ListSort) : DEFAULT_SORT;
  return { sort, setSort: (next) => filters.set('sort', next === DEFAULT_SORT ? null : next) };
}

export function SortHeader({ label, by }: { label: string; by: SortKey }) {
  const { sort, setSort } = useSort();
  const active = sort.startsWith(`${by}_`);
  const ascending = sort.endsWith('_asc');
  const next: ListSort = active && !ascending ? `${by}_asc` : `${by}_desc`;
  const arrow = active ? (ascending ? '▲' : '▼') : '↕';
  const hint = by === 'created' ? (next.endsWith('_asc') ? 'oldest first' : 'newest first') : next.endsWith('_asc') ? 'smallest first' : 'largest first';
  return (
    <Table.Th aria-sort={active ? (ascending ? 'ascending' : 'descending') : 'none'}>
      <UnstyledButton onClick={() => setSort(next)} title={`Sort ${hint}`} fw={700} fz="sm" style={{ whiteSpace: 'nowrap' }}>
        {label}{' '}
        <span aria-hidden="true" style={{ opacity: active ? 1 : 0.45 }}>
          {arrow}
        </span>
        <span className="sort-hint" style={{ position: 'absolute', width: 1, height: 1, overflow: 'hidden', clip: 'rect(0 0 0 0)', whiteSpace: 'nowrap' }}>
          , sort {hint}
        </span>
      </UnstyledButton>
    </Table.Th>
  );
}
