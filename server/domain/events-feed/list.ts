/**
 * `GET /v1/events` (decision 19): one environment's events, oldest first,
 * each the envelope its webhook deliveries carry (`OutboxEvent.envelope()`,
 * the one function that builds a delivered body), so a receiver that was down
 * reads what it missed and deduplicates on `id` as it does for deliveries.
 *
 * The cursor is the id of the last event the caller saw; the list continues
 * strictly after that event's sequence, with the events committed.ts lets a
 * reader step past: a page ends before an event whose transaction may still
 * be committing (the answer says `hasMore: false`: ask again later).
 */
import type { OutboxEvent } from '../../db/entities';
import type { EntityManager } from '../../db/orm';
import type { WebhookEventType } from '../../contract/event-types';
import { EVENTS_PAGE_SIZE } from '../../contract/schemas/events';
import { Refusal } from '../refusal';
import { raises } from '../raises';
import { committedEventsAfter, sequenceOfEvent } from './committed';

/** How long a missing sequence holds back the events after it (committed.ts). */
export { SETTLE_MS } from './committed';

export interface EventsQuery {
  after?: string;
  type?: WebhookEventType;
  limit?: number;
}

export type Envelope = ReturnType<OutboxEvent['envelope']>;

export interface EventsPage {
  data: Envelope[];
  hasMore: boolean;
  nextCursor: string | null;
}

export const LIST_EVENTS = raises(['invalid_input']);

export async function listEvents(em: EntityManager, environmentId: string, query: EventsQuery, retentionDays: number, now = Date.now()): Promise<EventsPage> {
  const limit = query.limit ?? EVENTS_PAGE_SIZE.default;
  let after = 0;
  if (query.after !== undefined) {
    const sequence = await sequenceOfEvent(em, query.after, environmentId);
    // Another environment's id answers as an unknown one: nothing tells a key what exists elsewhere.
    if (sequence === null) {
      throw new Refusal('invalid_input', {
        issues: [{ path: ['after'], message: `is not an event of this environment (unknown, of another environment, or older than the ${retentionDays} days events are kept); start again without after` }],
      });
    }
    after = sequence;
  }

  const listable = await committedEventsAfter(em, environmentId, after, { type: query.type, limit: limit + 1, now });
  const page = listable.slice(0, limit);
  return {
    data: page.map((event) => event.envelope()),
    hasMore: listable.length > limit,
    nextCursor: page.at(-1)?.id ?? query.after ?? null,
  };
}

