/** The events of a payment or subscription in order, each with its exact payload and its deliveries. */
import { Anchor, Badge, Card, Collapse, Group, Stack, Text, Timeline, Title, UnstyledButton } from '@mantine/core';
import { useState, type ReactNode } from 'react';
import type { Outputs } from '../api/client';
import { Link, useParams } from 'react-router';
import { eventPath } from './delivery-address';
import { Bidi } from '../ui/Bidi';
import { formatDateTime } from '../ui/format';
import { Json } from '../ui/Json';
import { Empty } from '../ui/states';
import { StatusBadge } from '../ui/StatusBadge';
import { DeliveryDrawer } from './DeliveryDrawer';

type TimelineEvent = Outputs['payments']['get']['events'][number];

function EventItem({ event, onDelivery, annotation }: { event: TimelineEvent; onDelivery: (id: string) => void; annotation?: ReactNode }) {
  const [open, setOpen] = useState(false);
  const { environmentId = '' } = useParams();
  return (
    <Stack gap={4}>
      <Group gap="xs">
        <Anchor component={Link} to={eventPath(environmentId, event.id)} fw={600} aria-label={`Event ${event.type} (${event.id})`}>
          {event.type}
        </Anchor>
        <Text size="sm" c="dimmed">
          #{event.sequence} · {formatDateTime(event.createdAt)}
        </Text>
      </Group>
      {annotation}
      {event.deliveries.length === 0 ? (
        <Text size="sm" c="dimmed">
          {event.dispatchedAt ? 'No endpoint wanted this event.' : 'Waiting to be dispatched to endpoints.'}
        </Text>
      ) : (
        event.deliveries.map((delivery) => (
          <Group key={delivery.id} gap="xs" wrap="nowrap">
            <StatusBadge status={delivery.status} />
            <Anchor component="button" type="button" size="sm" onClick={() => onDelivery(delivery.id)} aria-label={`Delivery ${delivery.id} to ${delivery.endpointUrl}`}>
              <Text span size="sm" truncate maw={300} display="inline-block" style={{ verticalAlign: 'bottom' }}>
                <Bidi>{delivery.endpointUrl}</Bidi>
              </Text>
            </Anchor>
            <Badge variant="outline" color="gray" size="sm">
              {delivery.attempts} attempt{delivery.attempts === 1 ? '' : 's'}
            </Badge>
          </Group>
        ))
      )}
      <UnstyledButton onClick={() => setOpen((o) => !o)} aria-expanded={open} fz="sm" c="indigo.7">
        {open ? 'Hide payload' : 'Show payload'}
      </UnstyledButton>
      <Collapse expanded={open}>
        <Json value={event.payload} label={`Payload of ${event.type}`} />
      </Collapse>
    </Stack>
  );
}

/** `annotate`: what the page adds under an event (a refund's current state under its refund.created). */
export function EventTimeline({ events, organizationId, annotate }: { events: TimelineEvent[]; organizationId: string; annotate?: (event: TimelineEvent) => ReactNode }) {
  const [deliveryId, setDeliveryId] = useState<string | null>(null);
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="md">
        Timeline
      </Title>
      {events.length === 0 ? (
        <Empty>No event yet.</Empty>
      ) : (
        <Timeline active={events.length - 1} bulletSize={14} lineWidth={2} aria-label="Events">
          {events.map((event) => (
            <Timeline.Item key={event.id}>
              <EventItem event={event} onDelivery={setDeliveryId} annotation={annotate?.(event)} />
            </Timeline.Item>
          ))}
        </Timeline>
      )}
      <DeliveryDrawer deliveryId={deliveryId} organizationId={organizationId} onClose={() => setDeliveryId(null)} />
    </Card>
  );
}
