import { defineEntity, p } from '@mikro-orm/core';
import { WebhookDelivery } from './webhook-delivery';

export const WEBHOOK_ATTEMPT_OUTCOMES = ['SENT', 'FAILED', 'INTERRUPTED'] as const;
export type WebhookAttemptOutcome = (typeof WEBHOOK_ATTEMPT_OUTCOMES)[number];

/** `dispatch`: the first automatic attempt (or one queued again); `retry`: a scheduled automatic retry; `resend`: an operator's. */
export const WEBHOOK_ATTEMPT_TRIGGERS = ['dispatch', 'retry', 'resend'] as const;
export type WebhookAttemptTrigger = (typeof WEBHOOK_ATTEMPT_TRIGGERS)[number];

/**
 * One HTTP attempt of a delivery, kept as history. `outcome` is null while
 * the attempt is in flight; `INTERRUPTED` when its instance stopped before
 * recording an outcome and the lease expired. The response excerpt is
 * bounded and only ever stored, never followed or interpreted.
 */
export const WebhookAttemptSchema = defineEntity({
  name: 'WebhookAttempt',
  tableName: 'webhook_attempts',
  uniques: [{ properties: ['delivery', 'number'] }],
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    delivery: () => p.manyToOne(WebhookDelivery),
    number: p.integer(),
    trigger: p.enum(WEBHOOK_ATTEMPT_TRIGGERS),
    startedAt: p.datetime(),
    finishedAt: p.datetime().nullable(),
    outcome: p.enum(WEBHOOK_ATTEMPT_OUTCOMES).nullable(),
    responseStatus: p.integer().nullable(),
    durationMs: p.integer().nullable(),
    responseExcerpt: p.text().nullable(),
    /** Why it failed without a usable answer (timeout, network error, refused address), without secrets. */
    error: p.string().length(512).nullable(),
  },
});

export class WebhookAttempt extends WebhookAttemptSchema.class {}
WebhookAttemptSchema.setClass(WebhookAttempt);
