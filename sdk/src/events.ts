/**
 * Outbound webhook events (the service's docs/api.md, "Receiving webhooks"). They are not part of the OpenAPI
 * document, which covers only the synchronous endpoints, so they are written
 * here by hand; their value types come from the generated contract.
 */
import type { EventPage } from './generated/contract.js';
import type { Currency, GatewayName, PaymentMethod, PaymentStatus, RefundStatus, SubscriptionInterval, SubscriptionStatus } from './types.js';

export const PAYMENT_EVENT_TYPES = ['payment.created', 'payment.pending', 'payment.paid', 'payment.failed', 'payment.canceled', 'payment.expired'] as const;

export const SUBSCRIPTION_EVENT_TYPES = [
  'subscription.created',
  'subscription.renewed',
  'subscription.payment_failed',
  'subscription.past_due',
  'subscription.canceled',
] as const;

/** A refund was asked for (`pending`), then the gateway gave the money back (`succeeded`) or did not (`failed`). */
export const REFUND_EVENT_TYPES = ['refund.created', 'refund.succeeded', 'refund.failed'] as const;

export type PaymentEventType = (typeof PAYMENT_EVENT_TYPES)[number];
export type SubscriptionEventType = (typeof SUBSCRIPTION_EVENT_TYPES)[number];
export type RefundEventType = (typeof REFUND_EVENT_TYPES)[number];
export type WebhookEventType = PaymentEventType | SubscriptionEventType | RefundEventType;

/**
 * `data` of a payment event: the payment as of the transition. (The `data` types are type aliases, not
 * interfaces, so a `WebhookEvent` is also assignable to the contract's open `Event`, as listed events used to be typed.)
 */
export type PaymentEventData = {
  paymentId: string;
  externalId: string | null;
  status: PaymentStatus;
  method: PaymentMethod;
  /** The gateway that holds the payment. */
  provider: GatewayName;
  /** Integer cents. */
  amount: number;
  currency: Currency;
  gatewayRef: string | null;
};

/** `data` of a subscription event: the subscription as of the transition. */
export type SubscriptionEventData = {
  subscriptionId: string;
  externalId: string | null;
  status: SubscriptionStatus;
  method: PaymentMethod;
  provider: GatewayName;
  /** Recurring amount in integer cents. */
  amount: number;
  currency: Currency;
  interval: SubscriptionInterval;
  gatewayRef: string | null;
  /** ISO 8601 timestamps or null. */
  nextBillingAt: string | null;
  trialEndsAt: string | null;
  cancelAtPeriodEnd: boolean;
  canceledAt: string | null;
};

/** `data` of a refund event: the refund as of the transition, with its payment. */
export type RefundEventData = {
  refundId: string;
  /** The refunded payment (`pay_…`); it stays `paid`, its `amountRefunded` counts succeeded refunds. */
  paymentId: string;
  /** Your idempotency identifier of the refund. */
  externalId: string;
  status: RefundStatus;
  /** The payment's gateway, which makes the refund. */
  provider: GatewayName;
  /** Integer cents given back. */
  amount: number;
  currency: Currency;
  reason: string | null;
  /** The gateway's refund id; null until the gateway accepted the refund. */
  gatewayRef: string | null;
  /** `refund.failed`: why, as the gateway said; null otherwise. */
  failureReason: string | null;
};

/** The envelope of every delivery. */
export interface WebhookEnvelope<Type extends string, Data> {
  /** `evt_…`; the same event may be delivered more than once: deduplicate on it. */
  id: string;
  type: Type;
  /** ISO 8601 timestamp of the transition. */
  createdAt: string;
  data: Data;
}

export type PaymentEvent = { [T in PaymentEventType]: WebhookEnvelope<T, PaymentEventData> }[PaymentEventType];
export type SubscriptionEvent = { [T in SubscriptionEventType]: WebhookEnvelope<T, SubscriptionEventData> }[SubscriptionEventType];
export type RefundEvent = { [T in RefundEventType]: WebhookEnvelope<T, RefundEventData> }[RefundEventType];

/**
 * A verified delivery, discriminated by `type`. New event types may be added
 * to /v1 without notice (a compatible change): handle the types you know and ignore the rest.
 */
export type WebhookEvent = PaymentEvent | SubscriptionEvent | RefundEvent;

/**
 * A page of `GET /v1/events`: the contract's `EventPage`, whose events are the
 * envelopes deliveries carry, typed as the same `WebhookEvent` union (the
 * contract leaves `data` open only because new event types may come).
 */
export type WebhookEventPage = Omit<EventPage, 'data'> & { data: WebhookEvent[] };

export const isPaymentEvent = (event: { type: string }): event is PaymentEvent => (PAYMENT_EVENT_TYPES as readonly string[]).includes(event.type);

export const isSubscriptionEvent = (event: { type: string }): event is SubscriptionEvent =>
  (SUBSCRIPTION_EVENT_TYPES as readonly string[]).includes(event.type);

export const isRefundEvent = (event: { type: string }): event is RefundEvent => (REFUND_EVENT_TYPES as readonly string[]).includes(event.type);
