/** One subscription: its state, the gateway's reference, its charges, the timeline of its events; the simulators in sandbox. */
import { Anchor, Breadcrumbs, Card, Group, Stack, Table, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { api } from '../api/client';
import { useCan } from '../api/session';
import { Facts } from '../parts/Facts';
import { Simulators, type SimulatorAction } from '../parts/Simulators';
import { EventTimeline } from '../parts/Timeline';
import { useScope } from '../shell/scope';
import { CopyValue } from '../ui/Copy';
import { formatAmount, formatDate, formatDateTime } from '../ui/format';
import { Failed, Loading } from '../ui/states';
import { StatusBadge } from '../ui/StatusBadge';

type SubscriptionOutcome = 'complete-checkout' | 'renew' | 'charge-failure' | 'past-due' | 'end-trial';

export default function SubscriptionDetailPage() {
  const scope = useScope();
  const { subscriptionId = '' } = useParams();
  const canSimulate = useCan(scope.organizationId, 'develop') && scope.kind === 'sandbox';
  const detail = useQuery({
    queryKey: ['subscriptions', 'get', subscriptionId],
    queryFn: () => api.subscriptions.get.query({ subscriptionId }),
    refetchInterval: 3_000,
  });
  if (detail.error) return <Failed error={detail.error} />;
  if (!detail.data) return <Loading />;
  const { subscription, events, payments } = detail.data;
  const actions: SimulatorAction<SubscriptionOutcome>[] =
    subscription.status === 'canceled'
      ? []
      : [
          { outcome: 'complete-checkout', label: 'Complete checkout', color: 'teal' },
          { outcome: 'renew', label: 'Renew', color: 'teal' },
          ...(subscription.status === 'trialing' ? [{ outcome: 'end-trial' as const, label: 'End trial' }] : []),
          { outcome: 'charge-failure', label: 'Charge failure', color: 'red' },
          { outcome: 'past-due', label: 'Past due', color: 'orange' },
        ];
  return (
    <Stack>
      <Breadcrumbs>
        <Anchor component={Link} to={`/e/${scope.environmentId}/subscriptions`}>
          Subscriptions
        </Anchor>
        <span>{subscription.id}</span>
      </Breadcrumbs>
      <Group gap="sm">
        <Title order={1} size="h2">
          {formatAmount(subscription.amount, subscription.currency)} / {subscription.interval === 'monthly' ? 'month' : 'year'}
        </Title>
        <StatusBadge status={subscription.status} />
      </Group>
      <Card withBorder>
        <Facts
          items={[
            ['Subscription id', <CopyValue value={subscription.id} label="subscription id" />],
            ['External id', subscription.externalId],
            ['Gateway', subscription.gateway ?? '—'],
            ['Gateway reference', subscription.gatewayRef ?? '—'],
            ['Gateway status', subscription.gatewayStatus ?? '—'],
            ['Trial ends', formatDate(subscription.trialEndsAt)],
            ['Next billing', formatDate(subscription.nextBillingAt)],
            ['Cancels at period end', subscription.cancelAtPeriodEnd ? 'yes' : 'no'],
            ['Canceled', formatDateTime(subscription.canceledAt)],
            ['Created', formatDateTime(subscription.createdAt)],
          ]}
        />
      </Card>
      {canSimulate && (
        <Simulators actions={actions} run={(outcome) => api.simulators.subscription.mutate({ subscriptionId: subscription.id, outcome })} invalidate={[['subscriptions'], ['overview']]} />
      )}
      {payments.length > 0 && (
        <Card withBorder p={0}>
          <Title order={2} size="h4" p="md" pb={0}>
            Charges
          </Title>
          <Table.ScrollContainer minWidth={480}>
            <Table aria-label="Charges">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Payment</Table.Th>
                  <Table.Th>Amount</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Created</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {payments.map((payment) => (
                  <Table.Tr key={payment.id}>
                    <Table.Td>
                      <Anchor component={Link} to={`/e/${scope.environmentId}/payments/${payment.id}`} ff="monospace" size="sm">
                        {payment.id}
                      </Anchor>
                    </Table.Td>
                    <Table.Td>{formatAmount(payment.amount, payment.currency)}</Table.Td>
                    <Table.Td>
                      <StatusBadge status={payment.status} />
                    </Table.Td>
                    <Table.Td>{formatDateTime(payment.createdAt)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Card>
      )}
      <EventTimeline events={events} organizationId={scope.organizationId} />
    </Stack>
  );
}
