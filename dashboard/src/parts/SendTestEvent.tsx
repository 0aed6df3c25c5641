/**
 * "Send test event" on a webhook endpoint: the service delivers it a signed
 * `webhook.test` event through its normal delivery path, and this follows that
 * delivery until its attempt has an outcome, then says it beside the button
 * (the receiver's status code, or why it failed), so a merchant setting up a
 * receiver sees at once whether it answers and accepts the signature.
 */
import { Anchor, Button, Group, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, type Outputs } from '../api/client';
import { useAction } from '../ui/action';

type Delivery = Outputs['webhooks']['getDelivery'];

/** What happened to the test delivery, in a few words; null while it waits for its first attempt. */
function outcomeOf(delivery: Delivery): { text: string; color?: string } | null {
  const last = delivery.attemptHistory.at(-1);
  if (!last || !last.finishedAt) return null;
  const answer = last.responseStatus !== null ? `answered ${last.responseStatus}` : (last.error ?? 'no answer');
  if (delivery.status === 'SENT') return { text: `Delivered: ${answer}.`, color: 'teal.9' };
  if (delivery.status === 'FAILED') return { text: `Failed: ${answer}.`, color: 'red.8' };
  return { text: `Failed: ${answer}; retried automatically.`, color: 'orange.9' };
}

export function SendTestEvent({ endpointId, url, environmentId }: { endpointId: string; url: string; environmentId: string }) {
  const [deliveryId, setDeliveryId] = useState<string | null>(null);
  const send = useAction(() => api.webhooks.sendTestEvent.mutate({ endpointId }), { onSuccess: (answer) => setDeliveryId(answer.deliveryId) });
  const delivery = useQuery({
    queryKey: ['webhooks', 'getDelivery', deliveryId],
    queryFn: () => api.webhooks.getDelivery.query({ deliveryId: deliveryId! }),
    enabled: deliveryId !== null,
    // Until its attempt ends; a delivery waiting behind the endpoint's earlier ones, or for a retry, keeps being followed.
    refetchInterval: (query) => (query.state.data && query.state.data.status !== 'PENDING' ? false : 1_000),
  });
  const outcome = delivery.data ? outcomeOf(delivery.data) : null;
  return (
    <Stack gap={2} align="flex-start">
      <Button size="xs" variant="default" loading={send.isPending} onClick={() => send.mutate(undefined)} aria-label={`Send test event to ${url}`}>
        Send test event
      </Button>
      <Group gap={4} role="status" aria-live="polite">
        {deliveryId && (
          <Text size="xs" c={outcome?.color ?? 'dimmed'}>
            {outcome?.text ?? 'Test event sent, waiting for the answer…'}{' '}
            <Anchor component={Link} to={`/e/${environmentId}/deliveries?endpoint=${endpointId}`} size="xs">
              Deliveries
            </Anchor>
          </Text>
        )}
      </Group>
    </Stack>
  );
}
