/**
 * Inputs of the webhook procedures: endpoints, deliveries, resends.
 * Browser-safe (zod, the contract and two dependency-free lists of values),
 * so the dashboard's endpoint and delivery forms validate with these schemas.
 */
import { z } from 'zod';
import { TEXT_LIMITS } from '../limits';
import { Description, RecordId, text } from '../schemas/text';
import { WEBHOOK_DELIVERY_STATUSES } from '../delivery-statuses';
import { WEBHOOK_EVENT_TYPES } from '../event-types';
import { Cursor, Instant, RANGE_ORDER, rangeInOrder } from './listing';

/**
 * How long a replaced signing secret keeps signing after a rotation (the
 * same numbers as webhooks/endpoints.ts, which cannot be imported here: it
 * reaches the database; a test keeps them equal).
 */
export const DEFAULT_SECRET_OVERLAP_SECONDS = 24 * 60 * 60;
export const MAX_SECRET_OVERLAP_SECONDS = 30 * 24 * 60 * 60;

/** Event types the endpoint receives; an empty list means all of them. */
export const EnabledEvents = z
  .array(z.enum(WEBHOOK_EVENT_TYPES))
  .max(WEBHOOK_EVENT_TYPES.length)
  .transform((types) => [...new Set(types)].sort());

export const EndpointUrl = text({ min: 1, max: TEXT_LIMITS.url });

export const CreateEndpointInput = z.strictObject({
  environmentId: RecordId,
  url: EndpointUrl,
  enabledEvents: EnabledEvents.optional(),
  enabled: z.boolean().default(true),
  description: Description.optional(),
  /** Automatic retries of deliveries failed by timeout, network error or 5xx (decision 23); off unless asked. */
  retries: z.boolean().optional(),
});

export const ListEndpointsInput = z.strictObject({ environmentId: RecordId.optional(), projectId: RecordId.optional() });

export const UpdateEndpointInput = z.strictObject({
  endpointId: RecordId,
  url: EndpointUrl.optional(),
  enabledEvents: EnabledEvents.optional(),
  enabled: z.boolean().optional(),
  description: Description.nullable().optional(),
  retries: z.boolean().optional(),
});

/** "Send test event": one signed `webhook.test` event to this endpoint, through the normal delivery path. */
export const SendTestEventInput = z.strictObject({ endpointId: RecordId });

/** `keepPreviousFor`: seconds the replaced secret keeps signing new deliveries (default 24 h), or `now`. */
export const RotateSecretInput = z.strictObject({
  endpointId: RecordId,
  keepPreviousFor: z.union([z.int().min(1).max(MAX_SECRET_OVERLAP_SECONDS), z.literal('now')]).default(DEFAULT_SECRET_OVERLAP_SECONDS),
});

/** Deliveries per page: 50 unless asked, at most 500 (the CLI lists more at once than a page shows). */
export const DELIVERY_PAGE_SIZE = { default: 50, max: 500 } as const;

const deliveryFilter = {
  environmentId: RecordId.optional(),
  endpointId: RecordId.optional(),
  eventType: text({ max: TEXT_LIMITS.eventType }).optional(),
  /** Created at or after `createdFrom`, strictly before `createdTo`. */
  createdFrom: Instant.optional(),
  createdTo: Instant.optional(),
};

export const ListDeliveriesInput = z
  .strictObject({
    ...deliveryFilter,
    status: z.enum(WEBHOOK_DELIVERY_STATUSES).optional(),
    eventId: RecordId.optional(),
    /** The `pay_` or `sub_` id the deliveries' events are about. */
    resourceId: RecordId.optional(),
    cursor: Cursor.optional(),
    limit: z.int().min(1).max(DELIVERY_PAGE_SIZE.max).default(DELIVERY_PAGE_SIZE.default),
  })
  .refine(rangeInOrder, RANGE_ORDER);

export const DeliveryIdInput = z.strictObject({ deliveryId: RecordId });

/** At most this many failed deliveries are queued again by one `resendFailed` call. */
export const RESEND_FAILED_MAX = 1000;

/** Every FAILED delivery of an environment matching the filter is queued again. */
export const ResendFailedInput = z
  .strictObject({
    ...deliveryFilter,
    environmentId: RecordId,
    resourceId: RecordId.optional(),
  })
  .refine(rangeInOrder, RANGE_ORDER);
