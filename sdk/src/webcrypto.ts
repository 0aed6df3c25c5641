/**
 * @service-payments/sdk/webcrypto: everything of the main entry except the
 * `node:crypto` webhook functions, so it loads where `node:` modules do not
 * (Cloudflare Workers, Vercel and Netlify edge functions, Deno, browsers'
 * service workers). Webhook verification is async, on `crypto.subtle`.
 */
export * from './common.js';
export { verifyWebhookAsync, verifyWebhookDeliveryAsync, generateTestWebhookAsync } from './webhooks-webcrypto.js';
