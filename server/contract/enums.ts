/** Value sets named by the public contract: methods, gateways, statuses, intervals. */
export const GATEWAY_NAMES = ['gateway_a', 'gateway_b', 'gateway_c'] as const;
export type GatewayName = (typeof GATEWAY_NAMES)[number];

export const PAYMENT_METHODS = ['pix', 'card'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

export const PAYMENT_STATUSES = ['created', 'pending', 'processing', 'paid', 'failed', 'canceled', 'expired'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
export const FINAL_PAYMENT_STATUSES: readonly PaymentStatus[] = ['paid', 'failed', 'canceled', 'expired'];

/** A refund (decision 18): `pending` until its gateway says it settled or failed; both of those are final. */
export const REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

export const SUBSCRIPTION_STATUSES = ['trialing', 'active', 'past_due', 'canceled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export const SUBSCRIPTION_INTERVALS = ['monthly', 'yearly'] as const;
export type SubscriptionInterval = (typeof SUBSCRIPTION_INTERVALS)[number];

export const ENVIRONMENT_KINDS = ['sandbox', 'production'] as const;
export type EnvironmentKind = (typeof ENVIRONMENT_KINDS)[number];

/** Routing is configured per method; subscriptions have their own rule. */
export const ROUTING_METHODS = ['PIX', 'CARD', 'SUBSCRIPTION'] as const;
export type RoutingMethod = (typeof ROUTING_METHODS)[number];

export const BILLING_STATUSES = ['active', 'inactive', 'past_due', 'incomplete', 'canceled', 'expired'] as const;
export type BillingStatus = (typeof BILLING_STATUSES)[number];
