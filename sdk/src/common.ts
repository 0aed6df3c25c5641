/** What both entries export: the client, its errors and metadata, events, webhook errors and types, the contract types. */
export { PaymentsClient, PaymentsResource, SubscriptionsResource, RefundsResource, EventsResource, type PaymentsClientOptions, type ListEventsParams } from './client.js';
export { SDK_VERSION } from './version.js';
export type { RequestOptions } from './transport.js';
export type { ResponseMetadata, RateLimitInfo, WithResponse } from './response.js';
export {
  PaymentsError,
  PaymentsApiError,
  PaymentsConnectionError,
  PaymentsTimeoutError,
  isPaymentsApiError,
  isPaymentsConnectionError,
  isInvalidInputError,
  isBillingError,
  isRoutingError,
  isKnownErrorCode,
  type PaymentsErrorCode,
  type PaymentsApiErrorInit,
  type PaymentsConnectionErrorOptions,
} from './errors.js';
export {
  WebhookVerificationError,
  WebhookSignatureError,
  WebhookTimestampError,
  WebhookPayloadError,
  type VerifyWebhookInput,
  type VerifiedWebhook,
  type WebhookHeaders,
  type WebhookVerificationFailure,
  type GenerateTestWebhookInput,
  type TestWebhook,
  type TestWebhookEventInput,
} from './webhook-core.js';
export {
  PAYMENT_EVENT_TYPES,
  SUBSCRIPTION_EVENT_TYPES,
  REFUND_EVENT_TYPES,
  isPaymentEvent,
  isSubscriptionEvent,
  isRefundEvent,
  type PaymentEvent,
  type PaymentEventData,
  type PaymentEventType,
  type RefundEvent,
  type RefundEventData,
  type RefundEventType,
  type SubscriptionEvent,
  type SubscriptionEventData,
  type SubscriptionEventType,
  type WebhookEnvelope,
  type WebhookEvent,
  type WebhookEventPage,
  type WebhookEventType,
} from './events.js';
export type * from './types.js';
export { CONTRACT_VERSION, ERROR_CODES } from './generated/contract.js';
export type * from './generated/contract.js';
