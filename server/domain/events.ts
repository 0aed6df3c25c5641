/**
 * An event a state transition caused, before it is written to the outbox.
 * Its type is one of the contract's event types, so a transition cannot
 * record an event the contract does not list.
 */
import type { WebhookEventType } from '../contract/event-types';

export type PaymentEventType = Extract<WebhookEventType, `payment.${string}`>;
export type SubscriptionEventType = Extract<WebhookEventType, `subscription.${string}`>;

export interface DomainEvent {
  type: WebhookEventType;
  resourceId: string;
  environmentId: string;
  data: Record<string, unknown>;
}
