/** "Export CSV": a plain link to the list's export for its current filter and order (export-link.ts), downloaded by the browser. */
import { Button } from '@mantine/core';

/** What the lists' search box matches (domain/listing/search.ts). */
export const SEARCH_HELP =
  'Id or externalId (or its start); an e-mail (or its start, or @domain); a number an amount (25.00, 386,90, R$ 1.234,56); else part of a name, accents optional (3 characters or more). Payments also: the gateway reference, a card or document last 4, a metadata value.';

export function ExportButton({ href }: { href: string | undefined }) {
  if (!href) return <Button variant="default" disabled>Export CSV</Button>;
  return (
    <Button component="a" href={href} download variant="default">
      Export CSV
    </Button>
  );
}
