/** "Export CSV": a plain link to the list's export for its current filter and order (export-link.ts), downloaded by the browser. */
import { Button } from '@mantine/core';

/** What the lists' search box matches (domain/listing/search.ts). */
export const SEARCH_HELP = 'Id or externalId (or its start); with @ an e-mail (or its start); a number an amount (25, 25.00, 1,234.56); else part of a name (3 characters or more).';

export function ExportButton({ href }: { href: string | undefined }) {
  if (!href) return <Button variant="default" disabled>Export CSV</Button>;
  return (
    <Button component="a" href={href} download variant="default">
      Export CSV
    </Button>
  );
}
