/** Home: an outage banner while a gateway fails, payments and subscriptions created per day, by status, the webhook deliveries still owed, and what reconciliation has left to read. */
import { Anchor, Card, SegmentedControl, SimpleGrid, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { PAYMENT_STATUSES, SUBSCRIPTION_STATUSES } from '../../../server/contract/enums';
import { api } from '../api/client';
import { DeliveryBacklog } from '../parts/DeliveryBacklog';
import { OutageBanner } from '../parts/OutageBanner';
import { ReconciliationCard } from '../parts/ReconciliationCard';
import { FirstRunChecklist } from '../parts/FirstRunChecklist';
import { StatusBarChart } from '../parts/StatusBarChart';
import { useScope } from '../shell/scope';
import { formatAmount } from '../ui/format';
import { PageHeader } from '../ui/PageHeader';
import { Failed, Loading } from '../ui/states';

function Stat({ label, value, to, tone }: { label: string; value: string | number; to?: string; tone?: string }) {
  return (
    <Card withBorder padding="md">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fw={700} fz={28} c={tone}>
        {to ? (
          <Anchor component={Link} to={to} inherit c={tone}>
            {value}
          </Anchor>
        ) : (
          value
        )}
      </Text>
    </Card>
  );
}

export default function HomePage() {
  const scope = useScope();
  const [days, setDays] = useState('30');
  const summary = useQuery({
    queryKey: ['overview', 'summary', scope.environmentId, days],
    queryFn: () => api.overview.summary.query({ environmentId: scope.environmentId, days: Number(days) }),
    refetchInterval: 30_000,
  });
  if (summary.error) return <Failed error={summary.error} />;
  if (!summary.data) return <Loading />;
  const data = summary.data;
  const short = (date: string) => date.slice(5);
  const paymentSeries = data.days.map((day) => ({ date: short(day.date), ...day.payments }));
  const subscriptionSeries = data.days.map((day) => ({ date: short(day.date), ...day.subscriptions }));
  const base = `/e/${scope.environmentId}`;
  return (
    <Stack>
      <PageHeader title="Home">
        <SegmentedControl
          aria-label="Period"
          value={days}
          onChange={setDays}
          data={[
            { value: '7', label: '7 days' },
            { value: '30', label: '30 days' },
            { value: '90', label: '90 days' },
          ]}
        />
      </PageHeader>
      <OutageBanner environmentId={scope.environmentId} />
      <FirstRunChecklist environmentId={scope.environmentId} projectId={scope.projectId} />
      <SimpleGrid cols={{ base: 1, xs: 3 }}>
        <Stat label="Payments" value={data.totals.paymentCount} to={`${base}/payments`} />
        <Stat label="Paid volume" value={formatAmount(data.totals.paidAmount, data.currency)} tone="teal.8" />
        <Stat label="Subscriptions" value={data.totals.subscriptionCount} to={`${base}/subscriptions`} />
      </SimpleGrid>
      <DeliveryBacklog environmentId={scope.environmentId} />
      <StatusBarChart title="Payments per day, by status" label="Payments per day by status" statuses={PAYMENT_STATUSES} data={paymentSeries} height={260} />
      <StatusBarChart title="Subscriptions per day, by status" label="Subscriptions per day by status" statuses={SUBSCRIPTION_STATUSES} data={subscriptionSeries} height={200} />
      <ReconciliationCard environmentId={scope.environmentId} />
    </Stack>
  );
}
