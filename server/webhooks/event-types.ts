/** The standardized event types of spec 6.4 and 6.5, the values `enabledEvents` may name. */
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
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
