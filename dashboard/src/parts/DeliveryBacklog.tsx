/**
 * The webhook deliveries an environment still owes, on Home: queued ones
 * (waiting for a first attempt or a retry), failed ones, and how long the
 * oldest queued one has waited (server/domain/listing/delivery-backlog.ts).
 * Counts are exact up to 10,000, then "10,000+".
 */
import { Card, SimpleGrid, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { formatDateTime, formatRelative } from '../ui/format';
import { Figure } from '../ui/Figure';
import { Failed, Loading } from '../ui/states';

export function DeliveryBacklog({ environmentId }: { environmentId: string }) {
  const backlog = useQuery({
    queryKey: ['overview', 'backlog', environmentId],
    queryFn: () => api.overview.backlog.query({ environmentId }),
    refetchInterval: 30_000,
  });
  const deliveries = `/e/${environmentId}/deliveries`;
  const body = (() => {
    if (backlog.error) return <Failed error={backlog.error} />;
    if (!backlog.data) return <Loading />;
    const { queued, failed, oldestQueuedAt, checkedAt } = backlog.data;
    return (
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <Figure label="Queued" value={queued.count} more={queued.more} to={`${deliveries}?status=PENDING`} tone="orange.8" detail="waiting for a first attempt or a retry" />
        <Figure label="Failed" value={failed.count} more={failed.more} to={`${deliveries}?status=FAILED`} tone="red.7" detail="gave up: resend from Deliveries" />
        <Figure
          label="Oldest queued"
          value={oldestQueuedAt ? formatRelative(oldestQueuedAt, Date.parse(checkedAt)) : 'none'}
          detail={oldestQueuedAt ? `created ${formatDateTime(oldestQueuedAt)}` : undefined}
        />
      </SimpleGrid>
    );
  })();
  return (
    <Card withBorder padding="md" component="section" aria-labelledby="delivery-backlog-title">
      <Title order={2} size="h4" mb="sm" id="delivery-backlog-title">
        Webhook deliveries owed
      </Title>
      {body}
    </Card>
  );
}
