/**
 * One event on a page of its own (/e/:env/events/:eventId): what it is
 * about, the envelope every endpoint receives (the same GET /v1/events
 * lists), and its delivery to each endpoint, each linked to its own page.
 */
import { Anchor, Breadcrumbs, Card, Code, Group, ScrollArea, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { api } from '../api/client';
import { deliveryPath } from '../parts/delivery-address';
import { Facts } from '../parts/Facts';
import { displayJson } from '../parts/safe-json';
import { useScope } from '../shell/scope';
import { CopyValue } from '../ui/Copy';
import { DataTable } from '../ui/DataTable';
import { formatDateTime } from '../ui/format';
import { Empty, Failed, Loading } from '../ui/states';
import { StatusBadge } from '../ui/StatusBadge';

/** Where the record an event is about has its page, by its id's prefix. */
function resourcePath(environmentId: string, resourceId: string): string | null {
  if (resourceId.startsWith('pay_')) return `/e/${environmentId}/payments/${resourceId}`;
  if (resourceId.startsWith('sub_')) return `/e/${environmentId}/subscriptions/${resourceId}`;
  return null;
}

export default function EventPage() {
  const scope = useScope();
  const { eventId = '' } = useParams();
  const detail = useQuery({
    queryKey: ['events', 'get', eventId],
    queryFn: () => api.events.get.query({ eventId }),
    // Deliveries are attempted in the background: followed until each has an outcome.
    refetchInterval: (query) => {
      const data = query.state.data;
      return data && data.dispatchedAt && data.deliveries.every((delivery) => delivery.status !== 'PENDING') ? false : 3_000;
    },
  });
  if (detail.error) return <Failed error={detail.error} />;
  if (!detail.data) return <Loading />;
  const event = detail.data;
  const about = resourcePath(scope.environmentId, event.resourceId);
  return (
    <Stack>
      <Breadcrumbs>
        <Anchor component={Link} to={`/e/${scope.environmentId}/deliveries`}>
          Deliveries
        </Anchor>
        <span>{event.id}</span>
      </Breadcrumbs>
      <Title order={1} size="h2">
        Event {event.type}
      </Title>
      <Card withBorder>
        <Facts
          items={[
            ['Event id', <CopyValue value={event.id} label="event id" />],
            ['Type', event.type],
            ['About', about ? <Anchor component={Link} to={about}>{event.resourceId}</Anchor> : event.resourceId],
            ['Sequence', `#${event.sequence}`],
            ['Created', formatDateTime(event.createdAt)],
            ['Dispatched', event.dispatchedAt ? formatDateTime(event.dispatchedAt) : 'not yet'],
          ]}
        />
      </Card>
      <Card withBorder>
        <Title order={2} size="h4" mb="xs">
          Envelope
        </Title>
        <Text size="sm" c="dimmed" mb="xs">
          Exactly what every endpoint receives, signed; GET /v1/events lists the same.
        </Text>
        <ScrollArea.Autosize mah={360} type="auto">
          <Code block aria-label="Envelope" dir="ltr" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all', unicodeBidi: 'isolate' }}>
            {displayJson(event.envelope)}
          </Code>
        </ScrollArea.Autosize>
      </Card>
      {event.deliveries.length === 0 ? (
        <Card withBorder>
          <Title order={2} size="h4">
            Deliveries
          </Title>
          <Empty>{event.dispatchedAt ? 'No endpoint wanted this event.' : 'Waiting to be dispatched to endpoints.'}</Empty>
        </Card>
      ) : (
        <DataTable title="Deliveries" label="Deliveries of this event" minWidth={640} columns={['Delivery', 'Status', 'Endpoint', 'Attempts', 'Last answer']}>
          {event.deliveries.map((delivery) => (
            <Table.Tr key={delivery.id}>
              <Table.Td>
                <Anchor component={Link} to={deliveryPath(scope.environmentId, delivery.id)} ff="monospace" size="sm">
                  {delivery.id}
                </Anchor>
              </Table.Td>
              <Table.Td>
                <StatusBadge status={delivery.status} />
              </Table.Td>
              <Table.Td>
                <Text size="sm" truncate maw={280}>
                  <bdi>{delivery.endpointUrl}</bdi>
                </Text>
              </Table.Td>
              <Table.Td>{delivery.attempts}</Table.Td>
              <Table.Td>
                <Group gap={4}>
                  <Text size="sm">{delivery.lastResponseStatus ? `HTTP ${delivery.lastResponseStatus}` : (delivery.lastError ?? '—')}</Text>
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </DataTable>
      )}
    </Stack>
  );
}
