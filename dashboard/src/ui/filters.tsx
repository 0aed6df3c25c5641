/**
 * The filter bar of the payments, subscriptions and deliveries lists. Values
 * live in the address (?status=paid&from=2026-11-01), so a filtered list can
 * be bookmarked, shared and comes back with the browser's Back button. On a
 * phone the bar waits behind a "Filters" button (saying how many are set), so
 * the list's first rows are on the first screen.
 */
import { Button, Group, Select, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useEffect, useId, useState } from 'react';
import { useSearchParams } from 'react-router';
import { useIsPhone } from './phone';

export interface FilterField {
  name: string;
  label: string;
  options: readonly string[];
}

/** The filters in the address, and a setter that keeps the others. */
export function useFilterParams() {
  const [params, setParams] = useSearchParams();
  const get = (name: string) => params.get(name) || undefined;
  const set = (name: string, value: string | null | undefined) =>
    setParams(
      () => {
        // From the address as it is now, not as this render saw it: the search box writes 300 ms after typing, and a
        // status picked in between was dropped by a write from the older render's parameters.
        const next = new URLSearchParams(window.location.search);
        if (value) next.set(name, value);
        else next.delete(name);
        return next;
      },
      { replace: true },
    );
  const clear = () => setParams(new URLSearchParams(), { replace: true });
  // The order (sort-header.tsx) is no filter: a sorted list is still the whole list.
  const count = new Set([...params.keys()].filter((name) => name !== 'sort')).size;
  return { get, set, clear, any: count > 0, count };
}

/** A date input's day (local) as the instant it starts; `to` is exclusive, so the end day's next midnight. */
export function dayRange(from: string | undefined, to: string | undefined) {
  const start = (day: string) => new Date(`${day}T00:00:00`).toISOString();
  const next = (day: string) => {
    const date = new Date(`${day}T00:00:00`);
    date.setDate(date.getDate() + 1);
    return date.toISOString();
  };
  return { createdFrom: from ? start(from) : undefined, createdTo: to ? next(to) : undefined };
}

/** A day, kept in the address under `name`. */
function DateFilter({ name, label }: { name: string; label: string }) {
  const filters = useFilterParams();
  return <TextInput label={label} type="date" value={filters.get(name) ?? ''} onChange={(e) => filters.set(name, e.currentTarget.value)} w={{ base: '47%', sm: 160 }} />;
}

export function FilterBar({
  fields,
  searchLabel,
  searchHelp,
  dates = true,
}: {
  fields: FilterField[];
  searchLabel?: string;
  /** What the search box matches, under it. */
  searchHelp?: string;
  dates?: boolean;
}) {
  const filters = useFilterParams();
  const [search, setSearch] = useState(filters.get('q') ?? '');
  const [debounced] = useDebouncedValue(search.trim(), 300);
  useEffect(() => {
    if ((filters.get('q') ?? '') !== debounced) filters.set('q', debounced);
    // Only the typed value drives this: `filters` is a new object on every render.
  }, [debounced]);
  const phone = useIsPhone();
  const [shown, setShown] = useState(false);
  const barId = useId();
  const toggle = phone && (
    <Button variant="default" size="xs" aria-expanded={shown} aria-controls={shown ? barId : undefined} onClick={() => setShown((was) => !was)}>
      {shown ? 'Hide filters' : filters.count > 0 ? `Filters (${filters.count})` : 'Filters'}
    </Button>
  );
  if (phone && !shown) return <Group>{toggle}</Group>;
  return (
    <>
      {toggle && <Group>{toggle}</Group>}
      <Group gap="sm" align="end" wrap="wrap" role="search" aria-label="Filters" id={barId}>
        {searchLabel && (
          <TextInput
            label="Search"
            placeholder={searchLabel}
            description={searchHelp}
            inputWrapperOrder={['label', 'input', 'description']}
            value={search}
            onChange={(e) => setSearch(e.currentTarget.value)}
            w={{ base: '100%', sm: 280 }}
          />
        )}
        {fields.map((field) => (
          <Select
            key={field.name}
            label={field.label}
            placeholder="Any"
            clearable
            data={[...field.options]}
            value={filters.get(field.name) ?? null}
            onChange={(value) => filters.set(field.name, value)}
            w={{ base: '47%', sm: 150 }}
          />
        ))}
        {dates && (
          <>
            <DateFilter name="from" label="Created from" />
            <DateFilter name="to" label="Created until" />
          </>
        )}
        {filters.any && (
          <Button
            variant="subtle"
            onClick={() => {
              setSearch('');
              filters.clear();
            }}
          >
            Clear filters
          </Button>
        )}
      </Group>
    </>
  );
}
