/** What the example does with each verified event: where a shop would fulfil orders, notify customers, etc. */
import type { WebhookEvent } from '@service-payments/sdk';

export type Log = (line: string) => void;

export async function handleEvent(event: WebhookEvent, log: Log): Promise<void> {
  switch (event.type) {
    case 'payment.paid':
      log(`payment ${event.data.paymentId} (order ${event.data.externalId}) paid: ${event.data.amount} cents via ${event.data.provider}; ship it`);
      return;
    case 'payment.failed':
    case 'payment.expired':
    case 'payment.canceled':
      log(`payment ${event.data.paymentId} (order ${event.data.externalId}) ${event.data.status}; release the reserved stock`);
      return;
    case 'payment.created':
    case 'payment.pending':
      log(`payment ${event.data.paymentId} ${event.data.status}`);
      return;
    case 'subscription.renewed':
      log(`subscription ${event.data.subscriptionId} renewed; next billing ${event.data.nextBillingAt ?? 'unknown'}`);
      return;
    case 'subscription.payment_failed':
    case 'subscription.past_due':
      log(`subscription ${event.data.subscriptionId} ${event.type === 'subscription.past_due' ? 'is past due' : 'charge failed'}; ask the customer to update the card`);
      return;
    case 'subscription.created':
    case 'subscription.canceled':
      log(`subscription ${event.data.subscriptionId} ${event.data.status}`);
      return;
    case 'refund.created':
      log(`refund ${event.data.refundId} of payment ${event.data.paymentId} (order ${event.data.externalId}) asked for: ${event.data.amount} cents`);
      return;
    case 'refund.succeeded':
      log(`refund ${event.data.refundId} of payment ${event.data.paymentId}: ${event.data.amount} cents given back; mark the order refunded`);
      return;
    case 'refund.failed':
      log(`refund ${event.data.refundId} of payment ${event.data.paymentId} failed: ${event.data.failureReason ?? 'no reason given'}; the money was not given back`);
      return;
    default:
      // New event types may appear in /v1 as a compatible change: acknowledge and ignore them.
      log(`ignored event type ${(event as { type: string }).type}`);
  }
}
