import { defineEntity, p } from '@mikro-orm/core';
import { newId } from '../../contract/ids';
import { WEBHOOK_DELIVERY_STATUSES } from '../../contract/delivery-statuses';
import { Environment } from './environment';
import { OutboxEvent } from './outbox-event';
import { WebhookEndpoint } from './webhook-endpoint';

/**
 * One event to one endpoint (`wd_` id). `PENDING` until its first attempt has
 * an outcome, or, on an endpoint with retries on, while it waits for its next
 * scheduled attempt (`nextAttemptAt`); then the outcome of its latest attempt
 * (`SENT`, or `FAILED` once no automatic attempt is left).
 *
 * The exact bytes sent (`body`), their timestamp and signature are fixed when
 * the first attempt starts and never rewritten, so a resend is byte-identical
 * (the receiver deduplicates on the event id). `leaseOwner`/`leaseUntil` are the claim of the one
 * service instance allowed to attempt it right now; an expired lease means
 * the attempt was interrupted and may be made again.
 */
export const WebhookDeliverySchema = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  uniques: [{ properties: ['endpoint', 'event'] }],
  indexes: [
    { properties: ['status', 'endpoint', 'eventSequence'] },
    { properties: ['environment', 'eventSequence'] },
    // The dashboard's failed-deliveries count and "resend all failed", and a status's list newest first (in its order).
    { properties: ['environment', 'status', 'eventSequence', 'id'] },
    // Pruning old events (domain/events-feed/prune.ts) finds their deliveries by event.
    { properties: ['event'] },
    // An endpoint's recent attempts (its success rate over the last 24 h, webhooks/endpoint-health.ts).
    { properties: ['endpoint', 'lastAttemptAt'] },
  ],
  properties: {
    id: p.string().primary().onCreate(() => newId('wd')),
    endpoint: () => p.manyToOne(WebhookEndpoint),
    event: () => p.manyToOne(OutboxEvent),
    environment: () => p.manyToOne(Environment),
    eventType: p.string().length(64),
    /** The event's commit order: deliveries to one endpoint go out in this order. */
    eventSequence: p.bigint('number'),
    status: p.enum(WEBHOOK_DELIVERY_STATUSES).default('PENDING'),
    attemptCount: p.integer().default(0),
    body: p.text().nullable(),
    /** Unix seconds sent as X-Service-Timestamp and signed with the body. */
    signedTimestamp: p.bigint('number').nullable(),
    /** The X-Service-Signature value, `sha256=<hex>`. Not a secret, it is sent to the receiver. */
    signature: p.text().nullable(),
    /** Fingerprint of the secret that signed it, as a one-element list (null before it was recorded). */
    signedWith: p.json<string[]>().nullable(),
    leaseOwner: p.string().length(64).nullable(),
    leaseUntil: p.datetime().nullable(),
    lastAttemptAt: p.datetime().nullable(),
    /**
     * Set while a `PENDING` delivery waits for its next automatic retry (an endpoint with retries on): the dispatcher
     * claims it once this has passed. Null for a delivery due at once and for every finished one.
     */
    nextAttemptAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

export class WebhookDelivery extends WebhookDeliverySchema.class {}
WebhookDeliverySchema.setClass(WebhookDelivery);
