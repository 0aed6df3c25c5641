/**
 * @service-payments/sdk: the typed client of the payments /v1 API and the
 * verifier of its webhooks. Webhook functions come in two flavours: on
 * `node:crypto` (synchronous) and on WebCrypto (`…Async`). Edge runtimes
 * without `node:` modules import `@service-payments/sdk/webcrypto` instead.
 */
export * from './common.js';
export { verifyWebhook, verifyWebhookDelivery, generateTestWebhook } from './webhooks.js';
export { verifyWebhookAsync, verifyWebhookDeliveryAsync, generateTestWebhookAsync } from './webhooks-webcrypto.js';
