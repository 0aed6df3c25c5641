/**
 * One delivery: the exact request each attempt sent (headers and body) and
 * what came back, attempt by attempt; a developer can send it again.
 */
import { Badge, Button, Card, Drawer, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Anchor } from '@mantine/core';
import { Link } from 'react-router';
import { api } from '../api/client';
import { deliveryPath, eventPath } from './delivery-address';
import { useCan } from '../api/session';
import { useAction } from '../ui/action';
import { Bidi } from '../ui/Bidi';
import { formatDateTime } from '../ui/format';
import { Json } from '../ui/Json';
import { Failed, Loading } from '../ui/states';
import { StatusBadge } from '../ui/StatusBadge';

export function DeliveryDrawer({ deliveryId, organizationId, onClose }: { deliveryId: string | null; organizationId: string; onClose: () => void }) {
  const canResend = useCan(organizationId, 'develop');
  const detail = useQuery({
    queryKey: ['webhooks', 'getDelivery', deliveryId],
    queryFn: () => api.webhooks.getDelivery.query({ deliveryId: deliveryId! }),
    enabled: deliveryId !== null,
  });
  const resend = useAction((id: string) => api.webhooks.resend.mutate({ deliveryId: id }), {
    success: (answer) => `Sent again: ${answer.status}${answer.lastResponseStatus ? ` (HTTP ${answer.lastResponseStatus})` : ''}.`,
    invalidate: [['webhooks'], ['payments', 'get'], ['subscriptions', 'get'], ['overview']],
  });
  const delivery = detail.data;
  return (
    <Drawer opened={deliveryId !== null} onClose={onClose} position="right" size="xl" title={<Title order={2} size="h4">Delivery {deliveryId}</Title>}>
      {detail.error ? (
        <Failed error={detail.error} />
      ) : !delivery ? (
        <Loading />
      ) : (
        <Stack>
          <Group justify="space-between">
            <Group gap="xs">
              <StatusBadge status={delivery.status} />
              <Text size="sm">{delivery.eventType}</Text>
              <Text size="sm" c="dimmed">
                {delivery.attempts} attempt{delivery.attempts === 1 ? '' : 's'}
              </Text>
            </Group>
            {canResend && (
              <Button size="sm" loading={resend.isPending} onClick={() => resend.mutate(delivery.id)} disabled={delivery.status === 'PENDING'}>
                Resend
              </Button>
            )}
          </Group>
          <Text size="sm">
            To <Text span ff="monospace"><Bidi>{delivery.endpointUrl}</Bidi></Text>
          </Text>
          <Group gap="md">
            <Anchor component={Link} to={eventPath(delivery.environmentId, delivery.eventId)} size="sm">
              Event {delivery.eventId}
            </Anchor>
            <Anchor component={Link} to={deliveryPath(delivery.environmentId, delivery.id)} size="sm">
              Link to this delivery
            </Anchor>
          </Group>
          {delivery.request ? (
            <Card withBorder>
              <Title order={3} size="h5" mb="xs">
                Request (every attempt sends these exact bytes)
              </Title>
              <Table withRowBorders={false} fz="sm" aria-label="Request headers">
                <Table.Tbody>
                  {Object.entries(delivery.request.headers).map(([name, value]) => (
                    <Table.Tr key={name}>
                      <Table.Td ff="monospace" w={200}>
                        {name}
                      </Table.Td>
                      <Table.Td ff="monospace" style={{ wordBreak: 'break-all' }}>
                        {String(value)}
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
              <Json value={delivery.request.body} label="Request body" />
            </Card>
          ) : (
            <Text c="dimmed" size="sm">
              Not attempted yet: the payload is fixed when the first attempt starts.
            </Text>
          )}
          <Title order={3} size="h5">
            Attempts
          </Title>
          {delivery.attemptHistory.length === 0 && <Text c="dimmed">None yet.</Text>}
          {delivery.attemptHistory.map((attempt) => (
            <Card withBorder key={attempt.number} padding="sm">
              <Group gap="xs" mb={4}>
                <Text fw={600}>#{attempt.number}</Text>
                <Badge variant="light" color={attempt.outcome === 'SENT' ? 'green' : attempt.outcome ? 'red' : 'gray'}>
                  {attempt.responseStatus ? `HTTP ${attempt.responseStatus}` : (attempt.outcome ?? 'in flight')}
                </Badge>
                <Text size="sm" c="dimmed">
                  {attempt.trigger} · {formatDateTime(attempt.startedAt)}
                  {attempt.durationMs != null ? ` · ${attempt.durationMs} ms` : ''}
                </Text>
              </Group>
              {attempt.error && (
                <Text size="sm" c="red.7">
                  {attempt.error}
                </Text>
              )}
              {attempt.responseExcerpt != null && <Json value={attempt.responseExcerpt} label={`Response of attempt ${attempt.number}`} maxHeight={160} />}
            </Card>
          ))}
        </Stack>
      )}
    </Drawer>
  );
}
