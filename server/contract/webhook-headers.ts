/**
 * The headers every webhook delivery carries (docs/api.md, "Receiving
 * webhooks"): shared by the dispatcher and by `payments-admin webhook
 * listen`, which forwards events to a local receiver exactly as a registered
 * endpoint gets them.
 */
export const WEBHOOK_USER_AGENT = 'service-payments-webhooks/1.0';

export interface SignedDelivery {
  deliveryId: string;
  eventType: string;
  timestamp: number;
  /** The `X-Service-Signature` value (webhook-signature.ts). */
  signature: string;
}

export function deliveryHeaders(delivery: SignedDelivery): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': WEBHOOK_USER_AGENT,
    'x-service-event': delivery.eventType,
    'x-service-delivery-id': delivery.deliveryId,
    'x-service-timestamp': String(delivery.timestamp),
    'x-service-signature': delivery.signature,
  };
}
