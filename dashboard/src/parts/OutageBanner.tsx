/**
 * Home's outage banner: shown while a gateway's breaker is open (routing
 * skips it) or a payment method mostly fails at a gateway over the last
 * minutes (server/domain/routing/outage.ts), naming each and since when,
 * with the way to the Gateways page. Nothing is drawn while all is well.
 */
import { Alert, Anchor, List, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, type Outputs } from '../api/client';
import { formatDateTime } from '../ui/format';

type Outage = Outputs['overview']['outage'];

const METHOD_NAMES = { card: 'Card', pix: 'Pix' } as const;
const percent = (share: number) => `${Math.round(share * 100)} %`;

function breakerLine(breaker: Outage['breakers'][number]): string {
  const what = breaker.state === 'open' ? 'breaker is open: new payments skip it' : 'breaker is half-open: one payment at a time probes it';
  return `${breaker.gateway}'s ${what}${breaker.since ? `, since ${formatDateTime(breaker.since)}` : ''}.`;
}

function methodLine(failing: Outage['methods'][number], windowMinutes: number): string {
  const answered = failing.attempts - failing.failed;
  return (
    `${METHOD_NAMES[failing.method]} payments at ${failing.gateway}: ${answered} of ${failing.attempts} calls answered in the last ${windowMinutes} minutes ` +
    `(${percent(failing.successRate)}), failing since ${formatDateTime(failing.since)}.`
  );
}

export function OutageBanner({ environmentId }: { environmentId: string }) {
  const outage = useQuery({
    queryKey: ['overview', 'outage', environmentId],
    queryFn: () => api.overview.outage.query({ environmentId }),
    // An outage is news: checked more often than the page's other figures.
    refetchInterval: 10_000,
  });
  const data = outage.data;
  if (!data || (data.breakers.length === 0 && data.methods.length === 0)) return null;
  return (
    <Alert color="red" variant="light" role="alert" title="Payments are failing at a gateway" data-testid="outage-banner">
      <List size="sm" spacing={4}>
        {data.breakers.map((breaker) => (
          <List.Item key={`breaker-${breaker.gateway}`}>{breakerLine(breaker)}</List.Item>
        ))}
        {data.methods.map((failing) => (
          <List.Item key={`method-${failing.method}-${failing.gateway}`}>{methodLine(failing, data.windowMinutes)}</List.Item>
        ))}
      </List>
      <Text size="sm" mt="xs">
        {/* The alert's own dark red: the default link blue is too faint on its pink (axe color-contrast). */}
        <Anchor component={Link} to={`/e/${environmentId}/gateways`} inherit c="red.9" fw={600} underline="always">
          See the gateways' health and routing
        </Anchor>
      </Text>
    </Alert>
  );
}
