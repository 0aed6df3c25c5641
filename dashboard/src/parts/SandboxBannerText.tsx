/** The sandbox banner's promise: simulator actions only where simulators play this environment's gateways; otherwise where to configure. */
import { Anchor, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useReadiness } from './sandbox-readiness';

export function SandboxBannerText({ environmentId }: { environmentId: string }) {
  const readiness = useReadiness(environmentId);
  if (!readiness.data || readiness.data.simulators.length > 0) {
    return <Text size="sm">Test data: no real money moves. Simulator actions are available on payments and subscriptions.</Text>;
  }
  return (
    <Text size="sm">
      Test data: no real money moves. No gateway simulator runs for this sandbox: connect your gateways&apos; test accounts on{' '}
      <Anchor component={Link} to={`/e/${environmentId}/gateways`} inherit c="inherit" underline="always">
        Gateways &amp; routing
      </Anchor>
      .
    </Text>
  );
}
