/**
 * An audit entry's before and after as rows of a table: every field path
 * (`gateways.0.weight`) with its value on each side, and whether it changed.
 * Pure, so it is tested without a browser.
 */
export interface DiffRow {
  path: string;
  before: string;
  after: string;
  changed: boolean;
}

const ABSENT = '—';

function flatten(value: unknown, prefix: string, into: Map<string, string>) {
  if (value !== null && typeof value === 'object') {
    const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) into.set(prefix || '(value)', Array.isArray(value) ? '[]' : '{}');
    for (const [key, inner] of entries) flatten(inner, prefix ? `${prefix}.${key}` : key, into);
    return;
  }
  into.set(prefix || '(value)', value === null || value === undefined ? 'null' : typeof value === 'string' ? value : JSON.stringify(value));
}

/** Rows in the after's order, then fields only the before had; a side without the record at all shows a dash. */
export function diffRows(before: unknown, after: unknown): DiffRow[] {
  const left = new Map<string, string>();
  const right = new Map<string, string>();
  if (before != null) flatten(before, '', left);
  if (after != null) flatten(after, '', right);
  const paths = [...right.keys(), ...[...left.keys()].filter((path) => !right.has(path))];
  return paths.map((path) => {
    const was = left.get(path) ?? ABSENT;
    const now = right.get(path) ?? ABSENT;
    return { path, before: was, after: now, changed: was !== now };
  });
}
