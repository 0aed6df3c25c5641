/**
 * A delivery is `PENDING` until its first attempt has an outcome, then the
 * outcome of its latest attempt. (Kept free of ORM imports: the CLI uses it.)
 */
export const WEBHOOK_DELIVERY_STATUSES = ['PENDING', 'SENT', 'FAILED'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];
