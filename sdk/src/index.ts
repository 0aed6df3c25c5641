/** @service-payments/sdk: the typed client of the payments /v1 API and the verifier of its webhooks. */
export { PaymentsClient, PaymentsResource, SubscriptionsResource, SDK_VERSION, type PaymentsClientOptions } from './client.js';
export type { RequestOptions } from './transport.js';
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
} from './errors.js';
export { verifyWebhook, WebhookVerificationError, type VerifyWebhookInput, type WebhookHeaders, type WebhookVerificationFailure } from './webhooks.js';
export {
  PAYMENT_EVENT_TYPES,
  SUBSCRIPTION_EVENT_TYPES,
  isPaymentEvent,
  isSubscriptionEvent,
  type PaymentEvent,
  type PaymentEventData,
  type PaymentEventType,
  type SubscriptionEvent,
  type SubscriptionEventData,
  type SubscriptionEventType,
  type WebhookEnvelope,
  type WebhookEvent,
  type WebhookEventType,
} from './events.js';
export type * from './types.js';
export { CONTRACT_VERSION, ERROR_CODES } from './generated/contract.js';
export type * from './generated/contract.js';
