/**
 * Verification of outbound webhook deliveries with `node:crypto`
 * (synchronous), and test deliveries signed the same way. The WebCrypto
 * twins for edge runtimes are in webhooks-webcrypto.ts; both share
 * webhook-core.ts, so they accept and refuse the same deliveries.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent } from './events.js';
import {
  freshEvent,
  prepareDelivery,
  signatureMismatch,
  testDeliveryHeaders,
  testDeliveryParts,
  verifiedDelivery,
  type GenerateTestWebhookInput,
  type PreparedDelivery,
  type TestWebhook,
  type VerifiedWebhook,
  type VerifyWebhookInput,
} from './webhook-core.js';

function checkSignature(prepared: PreparedDelivery): void {
  for (const secret of prepared.secrets) {
    const expected = createHmac('sha256', secret).update(prepared.signedPayload).digest();
    // Every presented value is compared (32 bytes against 32 bytes, in constant time), whichever matches.
    let matched = false;
    for (const presented of prepared.signatures) matched = timingSafeEqual(presented, expected) || matched;
    if (matched) return;
  }
  throw signatureMismatch(prepared);
}

/**
 * Verifies a delivery and returns its event. Throws a `WebhookVerificationError`:
 * `WebhookSignatureError` (not signed by any of the secrets: answer 400 and
 * ignore it), `WebhookPayloadError` (signed, but not an event), or
 * `WebhookTimestampError` (correctly signed but outside the tolerance; it
 * carries the verified `event`: see `verifyWebhookDelivery` for taking
 * resends of events you never processed).
 */
export function verifyWebhook(input: VerifyWebhookInput): WebhookEvent {
  const prepared = prepareDelivery(input, 'verifyWebhook');
  checkSignature(prepared);
  return freshEvent(verifiedDelivery(prepared), prepared.toleranceSeconds);
}

/**
 * Like `verifyWebhook`, but a correctly signed delivery outside the tolerance
 * is returned with `stale: true` instead of thrown, so a receiver can take
 * an operator's resend of an event it never processed:
 *
 *     const { event, stale } = verifyWebhookDelivery({ rawBody, headers, secret: [newSecret, oldSecret] });
 *     if (await alreadyProcessed(event.id)) return reply(200);   // a repeat, fresh or not
 *     if (stale) log(`late resend of ${event.id}`);                // unprocessed: take it
 */
export function verifyWebhookDelivery(input: VerifyWebhookInput): VerifiedWebhook {
  const prepared = prepareDelivery(input, 'verifyWebhookDelivery');
  checkSignature(prepared);
  return verifiedDelivery(prepared);
}

/**
 * A delivery signed exactly as the service signs one, to test your receiver
 * without the service: `{ rawBody, headers, event }`.
 *
 *     const { rawBody, headers } = generateTestWebhook({ secret: 'whsec_test', event: { type: 'payment.paid', data: {...} } });
 *     await fetch('http://127.0.0.1:4000/webhooks', { method: 'POST', headers, body: rawBody });
 */
export function generateTestWebhook(input: GenerateTestWebhookInput): TestWebhook {
  const parts = testDeliveryParts(input, 'generateTestWebhook');
  const signed = `${parts.timestamp}.${parts.rawBody}`;
  const signatures = parts.secrets.map((secret) => createHmac('sha256', secret).update(signed, 'utf8').digest('hex'));
  return { rawBody: parts.rawBody, headers: testDeliveryHeaders(parts, signatures), event: parts.event };
}
