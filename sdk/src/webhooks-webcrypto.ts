/**
 * The webhook functions on WebCrypto (`globalThis.crypto.subtle`): async,
 * with nothing from `node:`, for edge runtimes (Cloudflare Workers, Vercel
 * and Netlify edge functions, Deno, Bun) and for Node alike. Same checks and
 * errors as the `node:crypto` ones: both share webhook-core.ts.
 */
import type { WebhookEvent } from './events.js';
import {
  bytesToHex,
  freshEvent,
  prepareDelivery,
  signatureMismatch,
  testDeliveryHeaders,
  testDeliveryParts,
  utf8,
  verifiedDelivery,
  type GenerateTestWebhookInput,
  type PreparedDelivery,
  type TestWebhook,
  type VerifiedWebhook,
  type VerifyWebhookInput,
} from './webhook-core.js';

type Subtle = typeof globalThis.crypto.subtle;

function subtle(where: string): Subtle {
  const value = globalThis.crypto?.subtle;
  if (!value) throw new TypeError(`${where}: this runtime has no WebCrypto (globalThis.crypto.subtle).`);
  return value;
}

const hmacKey = (crypto: Subtle, secret: string, usage: 'sign' | 'verify') =>
  crypto.importKey('raw', utf8(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [usage]);

async function checkSignature(prepared: PreparedDelivery, where: string): Promise<void> {
  const crypto = subtle(where);
  for (const secret of prepared.secrets) {
    const key = await hmacKey(crypto, secret, 'verify');
    // subtle.verify compares in constant time.
    for (const presented of prepared.signatures) {
      if (await crypto.verify('HMAC', key, presented, prepared.signedPayload)) return;
    }
  }
  throw signatureMismatch(prepared);
}

/** `verifyWebhook` on WebCrypto: resolves to the event, rejects with the same `WebhookVerificationError` subclasses. */
export async function verifyWebhookAsync(input: VerifyWebhookInput): Promise<WebhookEvent> {
  const prepared = prepareDelivery(input, 'verifyWebhookAsync');
  await checkSignature(prepared, 'verifyWebhookAsync');
  return freshEvent(verifiedDelivery(prepared), prepared.toleranceSeconds);
}

/** `verifyWebhookDelivery` on WebCrypto: a correctly signed delivery outside the tolerance resolves with `stale: true`. */
export async function verifyWebhookDeliveryAsync(input: VerifyWebhookInput): Promise<VerifiedWebhook> {
  const prepared = prepareDelivery(input, 'verifyWebhookDeliveryAsync');
  await checkSignature(prepared, 'verifyWebhookDeliveryAsync');
  return verifiedDelivery(prepared);
}

/** `generateTestWebhook` on WebCrypto. */
export async function generateTestWebhookAsync(input: GenerateTestWebhookInput): Promise<TestWebhook> {
  const parts = testDeliveryParts(input, 'generateTestWebhookAsync');
  const crypto = subtle('generateTestWebhookAsync');
  const payload = utf8(`${parts.timestamp}.${parts.rawBody}`);
  const signatures: string[] = [];
  for (const secret of parts.secrets) {
    const digest = await crypto.sign('HMAC', await hmacKey(crypto, secret, 'sign'), payload);
    signatures.push(bytesToHex(new Uint8Array(digest)));
  }
  return { rawBody: parts.rawBody, headers: testDeliveryHeaders(parts, signatures), event: parts.event };
}
