/**
 * Whether "New test payment" can work here: a developer, in a sandbox whose
 * Pix or card route reaches an enabled gateway account. Where none does (a
 * service that runs no simulators, or a sandbox not configured yet) the page
 * says what to configure instead of offering a button that would fail.
 */
import { Alert, Anchor, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useCan } from '../api/session';
import { useScope } from '../shell/scope';
import { useReadiness } from './sandbox-readiness';

export function useTestPayments(): 'ready' | 'unconfigured' | 'unavailable' {
  const scope = useScope();
  const canDevelop = useCan(scope.organizationId, 'develop');
  const readiness = useReadiness(scope.environmentId);
  if (!canDevelop || scope.kind !== 'sandbox' || !readiness.data) return 'unavailable';
  return readiness.data.methods.PIX || readiness.data.methods.CARD ? 'ready' : 'unconfigured';
}

export function TestPaymentNotice() {
  const scope = useScope();
  if (useTestPayments() !== 'unconfigured') return null;
  return (
    <Alert color="yellow" title="Test payments need a gateway first" data-testid="test-payment-notice">
      <Text size="sm">
        No Pix or card route of this sandbox reaches an enabled gateway, and this service runs no gateway simulators for it. On{' '}
        <Anchor component={Link} to={`/e/${scope.environmentId}/gateways`} inherit>
          Gateways &amp; routing
        </Anchor>
        , configure a gateway with the credentials of its own sandbox (test) account, give it the inbound webhook URL shown there, and route Pix or cards to it. Then
        create test payments here or with an API key of this environment.
      </Text>
    </Alert>
  );
}
