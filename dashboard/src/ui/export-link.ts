/**
 * The address of a list's CSV export (server/http/list-export.ts) for the
 * filter the list shows: the same input names, without the page. A plain
 * link the browser downloads with the session cookie.
 */
export function exportHref(list: 'payments' | 'subscriptions', filter: Record<string, unknown> | null): string | undefined {
  if (!filter) return undefined;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filter)) {
    if (name === 'cursor' || name === 'limit' || value === undefined || value === null) continue;
    params.set(name, String(value));
  }
  return `/internal/export/${list}.csv?${params}`;
}
