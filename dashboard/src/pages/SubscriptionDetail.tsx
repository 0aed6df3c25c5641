/** One subscription: its state, the gateway's reference, its charges, the timeline of its events; the simulators in sandbox. */
import { Card, Stack, Table } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { api } from '../api/client';
import { DetailHeader } from '../parts/DetailHeader';
import { Facts } from '../parts/Facts';
import { RoutingTrace } from '../parts/RoutingTrace';
import { useSandboxAccess } from '../parts/sandbox-access';
import { Simulators, type SimulatorAction } from '../parts/Simulators';
import { EventTimeline } from '../parts/Timeline';
import { MetadataCard } from '../parts/MetadataCard';
import { SubscriptionActions } from '../parts/SubscriptionActions';
import { customerFacts } from '../parts/customer-facts';
import { SummaryCells } from '../parts/SummaryCells';
import { useScope } from '../shell/scope';
import { Bidi } from '../ui/Bidi';
import { CopyValue } from '../ui/Copy';
import { DataTable } from '../ui/DataTable';
import { formatAmount, formatDate, formatDateTime } from '../ui/format';
import { Failed, Loading } from '../ui/states';

type SubscriptionOutcome = 'complete-checkout' | 'renew' | 'charge-failure' | 'past-due' | 'end-trial';

export default function SubscriptionDetailPage() {
  const scope = useScope();
  const { subscriptionId = '' } = useParams();
  const canSimulate = useSandboxAccess();
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
      <DetailHeader
        list="Subscriptions"
        listTo={`/e/${scope.environmentId}/subscriptions`}
        id={subscription.id}
        title={`${formatAmount(subscription.amount, subscription.currency)} / ${subscription.interval === 'monthly' ? 'month' : 'year'}`}
        status={subscription.status}
        actions={<SubscriptionActions subscription={subscription} organizationId={scope.organizationId} />}
      />
      <Card withBorder>
        <Facts
          items={[
            ['Subscription id', <CopyValue value={subscription.id} label="subscription id" />],
            ['External id', <Bidi>{subscription.externalId}</Bidi>],
            ['Gateway', subscription.gateway ?? '—'],
            ['Gateway reference', subscription.gatewayRef ?? '—'],
            ['Gateway status', subscription.gatewayStatus ?? '—'],
            ...customerFacts(subscription),
            ['Trial ends', formatDate(subscription.trialEndsAt)],
            ['Next billing', formatDate(subscription.nextBillingAt)],
            ['Cancels at period end', subscription.cancelAtPeriodEnd ? 'yes' : 'no'],
            ['Canceled', formatDateTime(subscription.canceledAt)],
            ['Created', formatDateTime(subscription.createdAt)],
          ]}
        />
      </Card>
      {canSimulate && (
        <Simulators gateway={subscription.gateway} actions={actions} run={(outcome) => api.simulators.subscription.mutate({ subscriptionId: subscription.id, outcome })} invalidate={[['subscriptions'], ['overview']]} />
      )}
      <RoutingTrace trace={detail.data.routingTrace} what="subscription" />
      {payments.length > 0 && (
        <DataTable title="Charges" label="Charges" minWidth={480} columns={['Payment', 'Amount', 'Status', 'Created']}>
          {payments.map((payment) => (
            <Table.Tr key={payment.id}>
              <SummaryCells id={payment.id} to={`/e/${scope.environmentId}/payments/${payment.id}`} amount={payment.amount} currency={payment.currency} status={payment.status} />
              <Table.Td>{formatDateTime(payment.createdAt)}</Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      )}
      <MetadataCard metadata={subscription.metadata} />
      <EventTimeline events={events} organizationId={scope.organizationId} />
    </Stack>
  );
}
