/**
 * An address that names no page (a mistyped or outdated link): said in the
 * layout, with the address as it was asked for and a way home, rather than
 * a silent jump to the start page. The address is shown as typed but
 * isolated, its direction controls shown rather than applied (ui/Bidi.tsx),
 * so a crafted link cannot make it read as another. An environment the
 * person cannot open is another matter: ui/NotAvailable.tsx.
 */
import { Button, Code, Stack, Text } from '@mantine/core';
import { Link, useLocation, useParams } from 'react-router';
import { Bidi } from '../ui/Bidi';
import { PageHeader } from '../ui/PageHeader';

/** The path as a person reads it: percent-escapes decoded where they form text. */
function readable(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

export default function NotFoundPage() {
  const location = useLocation();
  // Under /e/<environment>/ the way back is that environment's home; elsewhere, the start page.
  const { environmentId } = useParams();
  const address = readable(`/dashboard${location.pathname}${location.search}`);
  return (
    <Stack align="flex-start">
      <PageHeader title="Page not found" />
      <Text>There is no page at this address:</Text>
      <Code block data-testid="not-found-address" maw="100%" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
        <Bidi>{address}</Bidi>
      </Code>
      <Text size="sm" c="dimmed">
        The link may be mistyped, or the page it named may have moved.
      </Text>
      <Button component={Link} to={environmentId ? `/e/${environmentId}` : '/'}>
        Go to the home page
      </Button>
    </Stack>
  );
}
