/**
 * Types of the public /v1 contract, generated from its OpenAPI document by
 * sdk/scripts/generate.ts (`npm run sdk:generate`). Do not edit by hand:
 * test/sdk/contract-generated.test.ts fails when this file and the contract differ.
 */

export const CONTRACT_VERSION = "1.0.0";

export type AuthTest = {
  ok: true;
  organization: {
    id: string;
  };
  project: {
    id: string;
  };
  environment: {
    id: string;
    kind: "sandbox" | "production";
  };
  apiKey: {
    id: string;
  };
};

export type CancelSubscriptionRequest = {
  /** Default false. */
  atPeriodEnd?: boolean;
};

export type CreatePaymentRequest = {
  /**
   * Integer amount in cents (minor units of BRL).
   * exclusiveMinimum: 0
   */
  amount: number;
  /**
   * Only BRL.
   * default: "BRL"
   */
  currency?: "BRL";
  /** `pix` or `card`; upper case accepted, answered lower case. */
  method: "pix" | "card" | "PIX" | "CARD";
  customer: CustomerInput;
  /**
   * Your idempotency identifier, unique per environment.
   * minLength: 1
   * maxLength: 255
   */
  externalId: string;
  /** Free JSON object for your own references: at most 4096 bytes serialized and 4 levels deep. Do not put personal data or secrets here. */
  metadata?: {
    [key: string]: JsonValue;
  };
  /**
   * Where the gateway's hosted checkout sends the customer after paying, declining or abandoning it (the checkout of a card payment, or of a subscription on gateways that have one). An absolute `https://` URL; `http://` is accepted only for a loopback host (`localhost`, `127.0.0.1`, `[::1]`) in a sandbox environment. Passed to the gateway as it is; a gateway without a hosted checkout ignores it. Your page should read the payment's status from this API (or wait for the webhook), never from the return itself.
   * maxLength: 2048
   * format: uri
   */
  returnUrl?: string;
  /** Card options; rejected when method is pix. */
  card?: {
    /**
     * 1 to 24; gateway_a allows 1 to 12.
     * minimum: 1
     * maximum: 24
     * default: 1
     */
    installments?: number;
  };
};

export type CreateRefundRequest = {
  /**
   * Your idempotency identifier for this refund, unique per environment (refunds have their own externalIds, apart from payments'): repeating it answers the refund already made, never refunding twice.
   * minLength: 1
   * maxLength: 255
   */
  externalId: string;
  /**
   * Integer cents to give back, at most what is still refundable (the amount minus refunds pending or succeeded). Omitted: everything still refundable.
   * exclusiveMinimum: 0
   */
  amount?: number;
  /**
   * Why the money goes back, for your records; sent to the gateway where it takes one.
   * minLength: 1
   * maxLength: 255
   */
  reason?: string;
};

export type CreateSubscriptionRequest = {
  /**
   * Integer amount in cents (minor units of BRL).
   * exclusiveMinimum: 0
   */
  amount: number;
  /**
   * Only BRL.
   * default: "BRL"
   */
  currency?: "BRL";
  /** `monthly` or `yearly`; upper case accepted. */
  interval: "monthly" | "yearly" | "MONTHLY" | "YEARLY";
  /** 0 to 365. Default 0, except on gateway_c, where the plan fixes the trial: left out (or null) it is the plan's trial days, and any other value than the plan's is 400 `invalid_input` at `trialDays`, naming the plan's trial days. The stored subscription always says the trial the customer really gets. */
  trialDays?: number | null;
  customer: CustomerInput;
  /**
   * Your idempotency identifier, unique per environment.
   * minLength: 1
   * maxLength: 255
   */
  externalId: string;
  /** Free JSON object for your own references: at most 4096 bytes serialized and 4 levels deep. Do not put personal data or secrets here. */
  metadata?: {
    [key: string]: JsonValue;
  };
  /**
   * Where the gateway's hosted checkout sends the customer after paying, declining or abandoning it (the checkout of a card payment, or of a subscription on gateways that have one). An absolute `https://` URL; `http://` is accepted only for a loopback host (`localhost`, `127.0.0.1`, `[::1]`) in a sandbox environment. Passed to the gateway as it is; a gateway without a hosted checkout ignores it. Your page should read the payment's status from this API (or wait for the webhook), never from the return itself.
   * maxLength: 2048
   * format: uri
   */
  returnUrl?: string;
  /** Accepted and ignored. */
  card?: {
    /**
     * minimum: 1
     * maximum: 24
     */
    installments?: number;
  };
  /** `gateway.gateway_c.planId` is required when SUBSCRIPTION routing resolves to gateway_c, ignored otherwise. On gateway_c the plan fixes the price: the service reads the plan from the gateway at creation; an unknown plan is 400 `invalid_input` at `gateway.gateway_c.planId`, and an `amount` or `interval` other than the plan's is 400 `invalid_input` at that field, naming the plan's value. The stored subscription always carries what the customer is really charged. */
  gateway?: {
    gateway_c?: {
      /**
       * minLength: 1
       * maxLength: 255
       */
      planId: string;
    };
  };
};

export type Customer = {
  name: string | null;
  email: string | null;
  /** Last 4 digits of the tax document; the full document is never returned or stored. */
  documentLast4: string | null;
} | null;

export type CustomerInput = {
  /**
   * minLength: 1
   * maxLength: 255
   */
  name: string;
  /**
   * ASCII only, so its length in characters is its length in bytes.
   * maxLength: 255
   * format: email
   */
  email: string;
  /**
   * CPF or CNPJ, digits or formatted; punctuation is removed before it is sent to the gateway. Never stored in plaintext.
   * minLength: 8
   * maxLength: 32
   */
  document: string;
  /** Required for card payments routed to gateway_c and for subscriptions routed to gateway_c. */
  phone?: string | null;
};

/** Every error answer. `error` is the stable code to branch on; `message` is free text that may change. Only the extra fields named for the code appear. */
export type ErrorResponse = {
  error: "invalid_json" | "invalid_input" | "invalid_id" | "missing_query" | "cannot_cancel_pix" | "unauthorized" | "billing_inactive" | "billing_past_due" | "billing_incomplete" | "billing_canceled" | "billing_expired" | "billing_monthly_tx_limit_reached" | "not_found" | "cannot_cancel_paid" | "already_canceled" | "cannot_cancel_status" | "cannot_refund_status" | "external_id_conflict" | "missing_gateway_ref" | "no_routing_rule" | "provider_not_configured" | "provider_disabled" | "method_not_supported" | "action_not_implemented" | "rate_limit_exceeded" | "internal_error" | "not_implemented" | "gateway_error" | "service_unavailable";
  message?: string;
  /** invalid_input only. */
  issues?: ValidationIssue[];
  /** Gateway-related codes. */
  provider?: "gateway_a" | "gateway_b" | "gateway_c";
  /** method_not_supported only. */
  method?: "pix" | "card";
  /** not_implemented and action_not_implemented. */
  action?: string;
  /** Cancel and refund conflicts: the current status. */
  status?: string;
  /** external_id_conflict: the payment the refund of that externalId belongs to. */
  paymentId?: string;
  /** billing_monthly_tx_limit_reached: the monthly quota. */
  limit?: number;
  /** billing_monthly_tx_limit_reached: transactions used this month. */
  used?: number;
};

/** One event: exactly the JSON body a webhook endpoint receives for it (same `id`, `type`, `createdAt`, `data`). */
export type Event = {
  /** Event id, `evt_…`: the same id the webhook delivery carried. Deduplicate on it. */
  id: string;
  /** Event type (payment.created, payment.pending, payment.paid, payment.failed, payment.canceled, payment.expired, subscription.created, subscription.renewed, subscription.payment_failed, subscription.past_due, subscription.canceled, refund.created, refund.succeeded, refund.failed, and webhook.test for a test event sent to one endpoint from the dashboard, which changes nothing); new types may be added, ignore the ones you do not know. */
  type: string;
  /**
   * When the change that caused the event happened (ISO 8601, UTC).
   * format: date-time
   */
  createdAt: string;
  /** The payment, subscription or refund as of the change (the fields of the webhook section of the contract; refund events carry the refund with its `refundId` and its `paymentId`), never rewritten. */
  data: {
    [key: string]: unknown;
  };
};

export type EventPage = {
  /** Events in the order they were committed, oldest first. */
  data: Event[];
  /** `true` when more events can be read right now: ask again with `after` = `nextCursor`. `false`: you are caught up; poll again later. */
  hasMore: boolean;
  /** What to send as `after` next: the id of the last event in `data`, or the `after` you sent when `data` is empty (null when you sent none and there is no event yet). */
  nextCursor: string | null;
};

export type Health = {
  ok: true;
  service: "service-payments";
};

/** A value in `metadata`: any JSON value, its arrays and objects nested at most 3 levels deep (so `metadata` is at most 4 levels); no control characters in its strings or keys except tab, line feed and carriage return. */
export type JsonValue = string | number | boolean | null | (string | number | boolean | null | (string | number | boolean | null | (string | number | boolean | null)[] | {
  [key: string]: string | number | boolean | null;
})[] | {
  [key: string]: string | number | boolean | null | (string | number | boolean | null)[] | {
    [key: string]: string | number | boolean | null;
  };
})[] | {
  [key: string]: string | number | boolean | null | (string | number | boolean | null | (string | number | boolean | null)[] | {
    [key: string]: string | number | boolean | null;
  })[] | {
    [key: string]: string | number | boolean | null | (string | number | boolean | null)[] | {
      [key: string]: string | number | boolean | null;
    };
  };
};

export type Payment = {
  id: string;
  status: "created" | "pending" | "processing" | "paid" | "failed" | "canceled" | "expired";
  method: "pix" | "card";
  gateway: "gateway_a" | "gateway_b" | "gateway_c";
  /**
   * Integer cents. A payment you create is at least 1; a recurring charge of a subscription carries the amount its gateway reports charging, never negative.
   * minimum: 0
   */
  amount: number;
  currency: "BRL";
  /**
   * Your idempotency identifier (always present); a recurring charge the gateway created has `<subscription id>:<gateway reference>`.
   * minLength: 1
   */
  externalId: string;
  gatewayRef: string | null;
  customer: Customer;
  checkoutUrl: string | null;
  /** Pix: the code, once the gateway has handed it over (both parts together); null for card and until then. */
  pix: {
    qrCode: string;
    qrCodeText: string;
  } | null;
  card: {
    brand: string;
    last4: string;
  } | null;
  /**
   * ISO 8601 timestamp (UTC)
   * format: date-time
   */
  createdAt: string;
  /**
   * When the stored payment last changed (status, details from the gateway).
   * format: date-time
   */
  updatedAt: string;
  /** When the payment was made, as its gateway reports it (a Pix settlement, a card capture); the moment the service learned it was paid where the gateway gives no time; null until paid. */
  paidAt: string | null;
  /** Pix: when the code stops being payable, as the gateway states it; null for card and until the gateway hands the code over. */
  expiresAt: string | null;
  /** The subscription (`sub_…`) a recurring charge belongs to; null for one-off payments. */
  subscriptionId: string | null;
  /**
   * Integer cents given back by refunds that succeeded (decision 18); 0 when none has. A refunded payment stays `paid`; refunds still pending are not counted.
   * minimum: 0
   */
  amountRefunded: number;
};

export type Refund = {
  id: string;
  /** The refunded payment (`pay_…`). */
  paymentId: string;
  /**
   * Your idempotency identifier for this refund.
   * minLength: 1
   */
  externalId: string;
  /** `pending` until the gateway says the money went back (`succeeded`) or not (`failed`); both are final. A refund whose gateway call timed out stays `pending` and is settled by the gateway's later answer, never assumed. */
  status: "pending" | "succeeded" | "failed";
  /**
   * Integer cents given back.
   * exclusiveMinimum: 0
   */
  amount: number;
  currency: "BRL";
  reason: string | null;
  /** The payment's gateway, which makes the refund. */
  gateway: "gateway_a" | "gateway_b" | "gateway_c";
  /** The gateway's refund id; null until the gateway has accepted the refund, and for one it refused. */
  gatewayRef: string | null;
  /** `failed`: why, as the gateway said; null otherwise. */
  failureReason: string | null;
  /**
   * ISO 8601 timestamp (UTC)
   * format: date-time
   */
  createdAt: string;
  /**
   * ISO 8601 timestamp (UTC)
   * format: date-time
   */
  updatedAt: string;
};

export type Subscription = {
  id: string;
  status: "trialing" | "active" | "past_due" | "canceled";
  method: "pix" | "card";
  gateway: "gateway_a" | "gateway_b" | "gateway_c";
  /**
   * Recurring amount in integer cents (on gateway_c, the plan's).
   * exclusiveMinimum: 0
   */
  amount: number;
  currency: "BRL";
  interval: "monthly" | "yearly";
  /**
   * Trial days the customer really gets (on gateway_c, the plan's).
   * minimum: 0
   */
  trialDays: number;
  trialEndsAt: string | null;
  /** ISO 8601 timestamp of the next expected recurring charge; null once a cancel has taken effect. */
  nextBillingAt: string | null;
  cancelAtPeriodEnd: boolean;
  canceledAt: string | null;
  /**
   * Your idempotency identifier (always present).
   * minLength: 1
   */
  externalId: string;
  gatewayRef: string | null;
  checkoutUrl: string | null;
  customer: Customer;
  /**
   * ISO 8601 timestamp (UTC)
   * format: date-time
   */
  createdAt: string;
  /**
   * When the stored subscription last changed (status, dates from the gateway, a cancel).
   * format: date-time
   */
  updatedAt: string;
};

export type ValidationIssue = {
  path: (string | number)[];
  message: string;
};

/** Request body of `POST /v1/payments/{id}/cancel`. */
export type CancelPaymentRequest = {
  [key: string]: unknown;
};

/** Request body of `POST /v1/payments/{id}/sync`. */
export type SyncPaymentRequest = {
  [key: string]: unknown;
};

/** Request body of `POST /v1/subscriptions/{id}/sync`. */
export type SyncSubscriptionRequest = {
  [key: string]: unknown;
};

/** Every operation of /v1 by operationId: how it is called, what it answers, which error codes it may return. */
export interface Operations {
  "authTest": {
    method: "GET";
    path: "/v1/auth/test";
    successStatus: 200;
    request: never;
    response: AuthTest;
    errors: "unauthorized" | "rate_limit_exceeded" | "internal_error" | "service_unavailable";
  };
  "events-list": {
    method: "GET";
    path: "/v1/events";
    successStatus: 200;
    request: never;
    response: EventPage;
    errors: "invalid_input" | "unauthorized" | "rate_limit_exceeded" | "internal_error" | "service_unavailable";
  };
  "health": {
    method: "GET";
    path: "/v1/health";
    successStatus: 200;
    request: never;
    response: Health;
    errors: never;
  };
  "payments-cancel": {
    method: "POST";
    path: "/v1/payments/{id}/cancel";
    successStatus: 200;
    request: CancelPaymentRequest;
    response: Payment;
    errors: "invalid_json" | "invalid_input" | "invalid_id" | "cannot_cancel_pix" | "unauthorized" | "not_found" | "cannot_cancel_status" | "cannot_cancel_paid" | "already_canceled" | "missing_gateway_ref" | "provider_not_configured" | "rate_limit_exceeded" | "internal_error" | "not_implemented" | "gateway_error" | "service_unavailable";
  };
  "payments-create": {
    method: "POST";
    path: "/v1/payments";
    successStatus: 201;
    request: CreatePaymentRequest;
    response: Payment;
    errors: "invalid_json" | "invalid_input" | "unauthorized" | "billing_inactive" | "billing_past_due" | "billing_incomplete" | "billing_canceled" | "billing_expired" | "billing_monthly_tx_limit_reached" | "no_routing_rule" | "provider_not_configured" | "provider_disabled" | "method_not_supported" | "rate_limit_exceeded" | "internal_error" | "gateway_error" | "service_unavailable";
  };
  "payments-findByExternalId": {
    method: "GET";
    path: "/v1/payments";
    successStatus: 200;
    request: never;
    response: Payment;
    errors: "invalid_input" | "missing_query" | "unauthorized" | "not_found" | "rate_limit_exceeded" | "internal_error" | "service_unavailable";
  };
  "payments-get": {
    method: "GET";
    path: "/v1/payments/{id}";
    successStatus: 200;
    request: never;
    response: Payment;
    errors: "invalid_id" | "unauthorized" | "not_found" | "rate_limit_exceeded" | "internal_error" | "service_unavailable";
  };
  "payments-sync": {
    method: "POST";
    path: "/v1/payments/{id}/sync";
    successStatus: 200;
    request: SyncPaymentRequest;
    response: Payment;
    errors: "invalid_json" | "invalid_input" | "invalid_id" | "unauthorized" | "not_found" | "missing_gateway_ref" | "provider_not_configured" | "rate_limit_exceeded" | "internal_error" | "gateway_error" | "service_unavailable";
  };
  "refunds-create": {
    method: "POST";
    path: "/v1/payments/{id}/refunds";
    successStatus: 201;
    request: CreateRefundRequest;
    response: Refund;
    errors: "invalid_json" | "invalid_input" | "invalid_id" | "unauthorized" | "not_found" | "cannot_refund_status" | "external_id_conflict" | "provider_not_configured" | "rate_limit_exceeded" | "internal_error" | "not_implemented" | "gateway_error" | "service_unavailable";
  };
  "refunds-findByExternalId": {
    method: "GET";
    path: "/v1/refunds";
    successStatus: 200;
    request: never;
    response: Refund;
    errors: "invalid_input" | "missing_query" | "unauthorized" | "not_found" | "rate_limit_exceeded" | "internal_error" | "service_unavailable";
  };
  "refunds-get": {
    method: "GET";
    path: "/v1/refunds/{id}";
    successStatus: 200;
    request: never;
    response: Refund;
    errors: "invalid_id" | "unauthorized" | "not_found" | "rate_limit_exceeded" | "internal_error" | "service_unavailable";
  };
  "subscriptions-cancel": {
    method: "POST";
    path: "/v1/subscriptions/{id}/cancel";
    successStatus: 200;
    request: CancelSubscriptionRequest;
    response: Subscription;
    errors: "invalid_json" | "invalid_input" | "unauthorized" | "not_found" | "already_canceled" | "missing_gateway_ref" | "provider_not_configured" | "rate_limit_exceeded" | "internal_error" | "gateway_error" | "service_unavailable";
  };
  "subscriptions-create": {
    method: "POST";
    path: "/v1/subscriptions";
    successStatus: 201;
    request: CreateSubscriptionRequest;
    response: Subscription;
    errors: "invalid_json" | "invalid_input" | "unauthorized" | "billing_inactive" | "billing_past_due" | "billing_incomplete" | "billing_canceled" | "billing_expired" | "no_routing_rule" | "provider_not_configured" | "provider_disabled" | "method_not_supported" | "rate_limit_exceeded" | "internal_error" | "gateway_error" | "service_unavailable";
  };
  "subscriptions-findByExternalId": {
    method: "GET";
    path: "/v1/subscriptions";
    successStatus: 200;
    request: never;
    response: Subscription;
    errors: "invalid_input" | "missing_query" | "unauthorized" | "not_found" | "rate_limit_exceeded" | "internal_error" | "service_unavailable";
  };
  "subscriptions-get": {
    method: "GET";
    path: "/v1/subscriptions/{id}";
    successStatus: 200;
    request: never;
    response: Subscription;
    errors: "unauthorized" | "not_found" | "rate_limit_exceeded" | "internal_error" | "service_unavailable";
  };
  "subscriptions-sync": {
    method: "POST";
    path: "/v1/subscriptions/{id}/sync";
    successStatus: 200;
    request: SyncSubscriptionRequest;
    response: Subscription;
    errors: "invalid_json" | "invalid_input" | "unauthorized" | "not_found" | "missing_gateway_ref" | "provider_not_configured" | "rate_limit_exceeded" | "internal_error" | "gateway_error" | "service_unavailable";
  };
}

/** Every stable error code of the contract (`ErrorResponse.error`), in catalogue order. */
export const ERROR_CODES = [
  "invalid_json",
  "invalid_input",
  "invalid_id",
  "missing_query",
  "cannot_cancel_pix",
  "unauthorized",
  "billing_inactive",
  "billing_past_due",
  "billing_incomplete",
  "billing_canceled",
  "billing_expired",
  "billing_monthly_tx_limit_reached",
  "not_found",
  "cannot_cancel_paid",
  "already_canceled",
  "cannot_cancel_status",
  "cannot_refund_status",
  "external_id_conflict",
  "missing_gateway_ref",
  "no_routing_rule",
  "provider_not_configured",
  "provider_disabled",
  "method_not_supported",
  "action_not_implemented",
  "rate_limit_exceeded",
  "internal_error",
  "not_implemented",
  "gateway_error",
  "service_unavailable",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];
