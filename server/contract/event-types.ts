/** The standardized event types of the contract, the values an endpoint's `enabledEvents` may name. */
export const WEBHOOK_EVENT_TYPES = [
  'payment.created',
  'payment.pending',
  'payment.paid',
  'payment.failed',
  'payment.canceled',
  'payment.expired',
  'subscription.created',
  'subscription.renewed',
  'subscription.payment_failed',
  'subscription.past_due',
  'subscription.canceled',
  'refund.created',
  'refund.succeeded',
  'refund.failed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * The event "Send test event" delivers to one endpoint when asked (server/webhooks/test-event.ts). Not among the types
 * an endpoint subscribes to: no state change ever causes it, and every endpoint can be sent one.
 */
export const WEBHOOK_TEST_EVENT_TYPE = 'webhook.test';
