/**
 * Exhaustive status tables. A gateway word missing from its table maps to the
 * table's fallback, which is never final, so a new or misspelt status cannot
 * close a payment; `known: false` tells the caller to log it.
 */
export interface StatusTable<S extends string> {
  readonly entries: Readonly<Record<string, S>>;
  readonly fallback: S;
}

export interface MappedStatus<S extends string> {
  status: S;
  known: boolean;
}

export function mapStatus<S extends string>(table: StatusTable<S>, raw: string): MappedStatus<S> {
  const status = Object.hasOwn(table.entries, raw) ? table.entries[raw] : undefined;
  return status === undefined ? { status: table.fallback, known: false } : { status, known: true };
}
