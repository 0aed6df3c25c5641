/**
 * `GET /v1/events` (decision 19): one environment's events, oldest first,
 * each the envelope its webhook deliveries carry (`OutboxEvent.envelope()`,
 * the one function that builds a delivered body), so a receiver that was down
 * reads what it missed and deduplicates on `id` as it does for deliveries.
 *
 * The cursor is the id of the last event the caller saw; the list continues
 * strictly after that event's sequence. Sequences are taken at insert and
 * become visible at commit, so a transaction can commit after a
 * later-numbered one (server/http/listen-stream.ts). A page that went past a
 * number still in flight would make the reader skip that event for good, so
 * a page ends before the first missing sequence (of any environment: they are
 * one series) whose next visible event is younger than SETTLE_MS. A number
 * still missing after that is taken for a rolled-back transaction, as the
 * listen stream's grace does. Events are inserted at the commit of their
 * change (one statement, or the flush just before COMMIT), so a sequence is
 * in flight for milliseconds; the wait costs nothing unless a transaction
 * actually rolled back after numbering its events, and then only delays the
 * events after the hole (the answer says `hasMore: false`: ask again later).
 */
import { OutboxEvent } from '../../db/entities';
import type { EntityManager } from '../../db/orm';
import type { WebhookEventType } from '../../contract/event-types';
import { EVENTS_PAGE_SIZE } from '../../contract/schemas/events';
import { Refusal } from '../refusal';
import { raises } from '../raises';

/** How long a missing sequence holds back the events after it (see above). */
export const SETTLE_MS = 60_000;

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
    const [row] = await em.execute<{ sequence: string | number }[]>(`select sequence from events where id = ? and environment_id = ?`, [query.after, environmentId]);
    // Another environment's id answers as an unknown one: nothing tells a key what exists elsewhere.
    if (!row) {
      throw new Refusal('invalid_input', {
        issues: [{ path: ['after'], message: `is not an event of this environment (unknown, of another environment, or older than the ${retentionDays} days events are kept); start again without after` }],
      });
    }
    after = Number(row.sequence);
  }

  const candidates = await em.find(
    OutboxEvent,
    { environment: environmentId, sequence: { $gt: after }, ...(query.type ? { type: query.type } : {}) },
    { orderBy: { sequence: 'asc' }, limit: limit + 1 },
  );
  let listable = candidates;
  if (candidates.length > 0) {
    const settled = await settledBelow(em, after, candidates.at(-1)!.sequence, now);
    if (settled !== null) listable = candidates.filter((event) => event.sequence < settled);
  }
  const page = listable.slice(0, limit);
  return {
    data: page.map((event) => event.envelope()),
    hasMore: listable.length > limit,
    nextCursor: page.at(-1)?.id ?? query.after ?? null,
  };
}

/**
 * The first visible sequence in (after, upTo] that follows a hole and is
 * younger than SETTLE_MS: events from it on may still have an earlier,
 * uncommitted neighbour. Null when nothing in the range is held back.
 */
async function settledBelow(em: EntityManager, after: number, upTo: number, now: number): Promise<number | null> {
  const [row] = await em.execute<{ first: string | number | null }[]>(
    `select min(e.sequence) as first from events e
     where e.sequence > ? and e.sequence <= ? and e.created_at > ? and e.sequence - 1 > ?
       and not exists (select 1 from events p where p.sequence = e.sequence - 1)`,
    [after, upTo, new Date(now - SETTLE_MS), after],
  );
  return row?.first === null || row?.first === undefined ? null : Number(row.first);
}
