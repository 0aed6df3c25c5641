/**
 * `GET /v1/events` (decision 19): the environment's events, oldest first,
 * each the envelope a webhook endpoint receives, paged by a cursor that is
 * the id of the last event the caller saw.
 */
import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT_TYPE } from '../event-types';
import { PublicId, Timestamp } from './common';

export const EVENTS_PAGE_SIZE = { default: 50, max: 100 } as const;
/** Kept at least this long (the founders' promise); EVENT_RETENTION_DAYS may only lengthen it. */
export const EVENT_RETENTION_MIN_DAYS = 30;

const EventId = z.string().regex(/^evt_[0-9a-z]{24}$/, 'must be an event id, evt_ followed by 24 lower-case letters and digits');

/**
 * Query parameters are strings on the wire and the router never coerces
 * (http/no-coercion.ts): `limit` is read from its digits here, so `1e2`,
 * `0x10` or ` 5` are refused rather than guessed. One pattern says exactly
 * which texts are 1 to 100 (at most three digits, leading zeros allowed), so
 * the OpenAPI document admits what the service admits and nothing else (an
 * integer schema would let a validator coerce `1e2` or ` 5`).
 */
const PAGE_SIZE_TEXT = '^(?:0{0,2}[1-9]|0?[1-9][0-9]|100)$';
export const ListEventsQuery = z.object({
  after: EventId.meta({
    description:
      'The id of the last event you processed: the list continues strictly after it. Omitted: from the oldest event kept. ' +
      'An id that is not an event of this environment (unknown, of another environment, or older than the retention) is 400 `invalid_input` at `after`.',
    example: 'evt_0a1b2c3d4e5f6g7h8i9j0k1l',
  }).optional(),
  type: z.enum(WEBHOOK_EVENT_TYPES).meta({ description: 'Only events of this type.' }).optional(),
  limit: z
    .string()
    .regex(new RegExp(PAGE_SIZE_TEXT), `must be an integer from 1 to ${EVENTS_PAGE_SIZE.max}`)
    .meta({ description: `Events per page, an integer from 1 to ${EVENTS_PAGE_SIZE.max} written in decimal digits; default ${EVENTS_PAGE_SIZE.default}.`, example: '50' })
    .transform(Number)
    .optional(),
});

export const Event = z
  .object({
    id: PublicId('evt').meta({ description: 'Event id, `evt_…`: the same id the webhook delivery carried. Deduplicate on it.', example: 'evt_0a1b2c3d4e5f6g7h8i9j0k1l' }),
    type: z.string().meta({ description: `Event type (${WEBHOOK_EVENT_TYPES.join(', ')}, and ${WEBHOOK_TEST_EVENT_TYPE} for a test event sent to one endpoint from the dashboard, which changes nothing); new types may be added, ignore the ones you do not know.` }),
    createdAt: Timestamp.meta({ description: 'When the change that caused the event happened (ISO 8601, UTC).' }),
    data: z.record(z.string(), z.unknown()).meta({ description: 'The payment, subscription or refund as of the change (the fields of the webhook section of the contract; refund events carry the refund with its `refundId` and its `paymentId`), never rewritten.' }),
  })
  .meta({ id: 'Event', description: 'One event: exactly the JSON body a webhook endpoint receives for it (same `id`, `type`, `createdAt`, `data`).' });

export const EventPage = z
  .object({
    data: z.array(Event).meta({ description: 'Events in the order they were committed, oldest first.' }),
    hasMore: z.boolean().meta({ description: '`true` when more events can be read right now: ask again with `after` = `nextCursor`. `false`: you are caught up; poll again later.' }),
    nextCursor: PublicId('evt')
      .nullable()
      .meta({ description: 'What to send as `after` next: the id of the last event in `data`, or the `after` you sent when `data` is empty (null when you sent none and there is no event yet).' }),
  })
  .meta({ id: 'EventPage' });
