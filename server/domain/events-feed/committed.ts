/**
 * Which events are committed and visible after a sequence: the one rule that
 * GET /v1/events (list.ts) and the operator API's webhook listen stream
 * (http/listen-stream.ts) read the events table by, and the only SQL either
 * runs on it.
 *
 * Sequences are one series over every environment, taken at insert and made
 * visible at commit, so a transaction can commit after a later-numbered one.
 * A number missing below a visible one is therefore in flight (its
 * transaction is still committing) and may yet turn up; one still missing
 * SETTLE_MS later is taken for a rolled-back transaction. Events are inserted
 * at the commit of their change, so a number is in flight for milliseconds:
 * the wait costs nothing unless a transaction rolled back after numbering.
 *
 * Two readers follow that rule in the way their cursor allows:
 * - a page (`committedEventsAfter`), whose cursor is one position (an event's
 *   id): it ends before the first missing number whose next visible event is
 *   younger than SETTLE_MS, so the reader never steps past an event still
 *   committing;
 * - a stream (`CommittedCursor`), which remembers what it passed: it sends
 *   each event as it becomes visible and looks again, for SETTLE_MS from when
 *   it noticed, for each number it passed without seeing (one payment's events
 *   stay in order: its changes are serialized by its row lock).
 */
import { OutboxEvent } from '../../db/entities';
import type { EntityManager } from '../../db/orm';
import type { WebhookEventType } from '../../contract/event-types';

/** How long a missing sequence may still turn up (a transaction committing late); after that it was rolled back. */
export const SETTLE_MS = 60_000;

/** How far below its start a stream looks for sequences still committing when it opens. */
const START_GAP_WINDOW = 100;
/** The most numbers a stream awaits at once (a burst of rollbacks must not grow its memory without bound). */
const MAX_GAPS = 1_000;

type Sequence = string | number;

/** The sequence of an event of this environment, or null (unknown, another environment's, or pruned). */
export async function sequenceOfEvent(em: EntityManager, eventId: string, environmentId: string): Promise<number | null> {
  const [row] = await em.execute<{ sequence: Sequence }[]>(`select sequence from events where id = ? and environment_id = ?`, [eventId, environmentId]);
  return row ? Number(row.sequence) : null;
}

/**
 * Up to `limit` of one environment's events after sequence `after`, oldest
 * first, that a reader may step past: none at or after a number still in
 * flight (see above). `now` is when the page is read.
 */
export async function committedEventsAfter(
  em: EntityManager,
  environmentId: string,
  after: number,
  options: { type?: WebhookEventType; limit: number; now: number },
): Promise<OutboxEvent[]> {
  const candidates = await em.find(
    OutboxEvent,
    { environment: environmentId, sequence: { $gt: after }, ...(options.type ? { type: options.type } : {}) },
    { orderBy: { sequence: 'asc' }, limit: options.limit },
  );
  if (candidates.length === 0) return candidates;
  const settled = await settledBelow(em, after, candidates.at(-1)!.sequence, options.now);
  return settled === null ? candidates : candidates.filter((event) => event.sequence < settled);
}

/**
 * The first visible sequence in (after, upTo] that follows a hole and is
 * younger than SETTLE_MS: events from it on may still have an earlier,
 * uncommitted neighbour. Null when nothing in the range is held back.
 */
async function settledBelow(em: EntityManager, after: number, upTo: number, now: number): Promise<number | null> {
  const [row] = await em.execute<{ first: Sequence | null }[]>(
    `select min(e.sequence) as first from events e
     where e.sequence > ? and e.sequence <= ? and e.created_at > ? and e.sequence - 1 > ?
       and not exists (select 1 from events p where p.sequence = e.sequence - 1)`,
    [after, upTo, new Date(now - SETTLE_MS), after],
  );
  return row?.first === null || row?.first === undefined ? null : Number(row.first);
}

/** A stream's position: everything at or below `after` was seen, except the sequences in `gaps`, still awaited. */
export class CommittedCursor {
  /** Awaited sequence → when the cursor noticed it missing. */
  private readonly gaps = new Map<number, number>();

  private constructor(public after: number) {}

  /**
   * A cursor after `start` (the newest sequence when omitted: nothing earlier
   * is replayed) that also awaits the recent numbers at or below it not
   * visible yet, so an event whose transaction commits after the stream
   * opened is never skipped.
   */
  static async open(em: EntityManager, start: number | undefined, now: number): Promise<CommittedCursor> {
    const from = start ?? (await newestSequence(em));
    const cursor = new CommittedCursor(from);
    const rows = await em.execute<{ sequence: Sequence }[]>(`select sequence from events where sequence > ? and sequence <= ?`, [from - START_GAP_WINDOW, from]);
    const seen = new Set(rows.map((row) => Number(row.sequence)));
    for (let sequence = Math.max(1, from - START_GAP_WINDOW + 1); sequence <= from; sequence++) {
      if (!seen.has(sequence)) cursor.gaps.set(sequence, now);
    }
    return cursor;
  }

  /**
   * One environment's events that became visible since the last read (after
   * the cursor, or an awaited number that turned up), in sequence order, and
   * the cursor moved past every sequence read. At most `batch` sequences of
   * all environments are read at once: every environment's move the cursor
   * (they are one series); only this one's events are loaded in full.
   */
  async next(em: EntityManager, environmentId: string, batch: number, now: number): Promise<OutboxEvent[]> {
    const awaited = this.awaited(now);
    const rows = await em.execute<{ sequence: Sequence; environment_id: string }[]>(
      awaited.length > 0
        ? `select sequence, environment_id from events where sequence > ? or sequence in (${awaited.map(() => '?').join(', ')}) order by sequence limit ?`
        : `select sequence, environment_id from events where sequence > ? order by sequence limit ?`,
      [this.after, ...awaited, batch],
    );
    if (rows.length === 0) return [];
    const mine = rows.filter((row) => row.environment_id === environmentId).map((row) => Number(row.sequence));
    const events = mine.length > 0 ? await em.find(OutboxEvent, { sequence: { $in: mine } }, { orderBy: { sequence: 'asc' } }) : [];
    this.advance(
      rows.map((row) => Number(row.sequence)),
      now,
    );
    return events;
  }

  /** Sequences still awaited below the cursor; those awaited longer than SETTLE_MS are given up. */
  private awaited(now: number): number[] {
    for (const [sequence, since] of this.gaps) if (now - since > SETTLE_MS) this.gaps.delete(sequence);
    return [...this.gaps.keys()];
  }

  /** Takes the sequences that became visible; any number skipped on the way is awaited. */
  private advance(visible: number[], now: number): void {
    for (const sequence of visible) {
      if (this.gaps.delete(sequence)) continue;
      if (sequence <= this.after) continue;
      for (let missing = Math.max(this.after + 1, sequence - MAX_GAPS); missing < sequence; missing++) this.gaps.set(missing, now);
      this.after = sequence;
    }
    while (this.gaps.size > MAX_GAPS) this.gaps.delete(this.gaps.keys().next().value!);
  }
}

async function newestSequence(em: EntityManager): Promise<number> {
  const [row] = await em.execute<{ last: Sequence | null }[]>(`select max(sequence) as last from events`);
  return Number(row?.last ?? 0);
}
