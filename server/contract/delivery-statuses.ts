/**
 * A delivery is `PENDING` until its first attempt has an outcome, then the
 * outcome of its latest attempt. On an endpoint with automatic retries on
 * (decision 23), a delivery that failed by timeout, network error or 5xx stays
 * `PENDING` (with `nextAttemptAt`) while a scheduled attempt remains: `FAILED`
 * still means no automatic attempt is left, `SENT` that a 2xx arrived in time.
 * (Kept free of ORM imports: the CLI uses it.)
 */
export const WEBHOOK_DELIVERY_STATUSES = ['PENDING', 'SENT', 'FAILED'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];
