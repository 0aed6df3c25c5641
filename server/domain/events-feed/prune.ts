/**
 * Retention of the events table: GET /v1/events promises events for at
 * least 30 days (decision 19; EVENT_RETENTION_DAYS may lengthen it). Older
 * events are deleted with their deliveries and the deliveries' attempts (the
 * foreign keys run attempts → deliveries → events), so the dashboard's
 * delivery history and manual resends reach back as far as the events do.
 *
 * An event is kept, whatever its age, while it is not fanned out yet or any
 * of its deliveries is unfinished (`PENDING`, or held by a node's lease: an
 * attempt or a resend in progress): pruning never takes a delivery from
 * under the dispatcher.
 *
 * Small batches, one short transaction each, rows taken with
 * `FOR UPDATE SKIP LOCKED`: no long lock on the table, the dispatcher and
 * the API never wait long, and every node may run it side by side (a batch
 * one node holds is skipped by the others; deleting is idempotent).
 */
import type { EntityManager } from '../../db/orm';
import { BackgroundLoop } from '../../runtime/background-loop';
import type { Services } from '../../services';

const BATCH = 500;
/** A pause between batches, so a large backlog (the first run after an upgrade) leaves room to everything else. */
const PAUSE_MS = 50;
/** How often each node looks for expired events. */
const INTERVAL_MS = 60 * 60_000;
/** The first pass after start, once the node is serving. */
const FIRST_PASS_MS = 60_000;

const DAY_MS = 86_400_000;

/** Deletes one batch of expired events (with their deliveries and attempts): how many were taken, how many deleted. */
export async function pruneEventsBatch(
  em: EntityManager,
  cutoff: Date,
  now: Date,
  batch = BATCH,
  afterSequence = 0,
  belowSequence = Number.MAX_SAFE_INTEGER,
): Promise<{ taken: number; deleted: number; lastSequence: number }> {
  return em.transactional(async (tx) => {
    const events = await tx.execute<{ id: string; sequence: string | number }[]>(
      `select e.id, e.sequence from events e
       where e.sequence > ? and e.sequence < ? and e.created_at < ? and e.dispatched_at is not null
         and not exists (select 1 from webhook_deliveries d where d.event_id = e.id and (d.status = 'PENDING' or d.lease_until > ?))
       order by e.sequence
       limit ?
       for update of e skip locked`,
      [afterSequence, belowSequence, cutoff, now, batch],
    );
    if (events.length === 0) return { taken: 0, deleted: 0, lastSequence: afterSequence };
    const lastSequence = Number(events.at(-1)!.sequence);
    const marks = events.map(() => '?').join(', ');
    const ids = events.map((event) => event.id);
    // The deliveries are locked too, then checked again: a resend that claimed one since the first read keeps its event.
    const deliveries = await tx.execute<{ id: string; event_id: string; busy: boolean }[]>(
      `select id, event_id, (status = 'PENDING' or coalesce(lease_until > ?, false)) as busy from webhook_deliveries where event_id in (${marks}) for update`,
      [now, ...ids],
    );
    const busy = new Set(deliveries.filter((delivery) => delivery.busy).map((delivery) => delivery.event_id));
    const expired = ids.filter((id) => !busy.has(id));
    const deliveryIds = deliveries.filter((delivery) => !busy.has(delivery.event_id)).map((delivery) => delivery.id);
    if (deliveryIds.length > 0) {
      const deliveryMarks = deliveryIds.map(() => '?').join(', ');
      await tx.execute(`delete from webhook_attempts where delivery_id in (${deliveryMarks})`, deliveryIds);
      await tx.execute(`delete from webhook_deliveries where id in (${deliveryMarks})`, deliveryIds);
    }
    if (expired.length > 0) await tx.execute(`delete from events where id in (${expired.map(() => '?').join(', ')})`, expired);
    // The pass goes on after this batch: events kept because they are busy are not read again until the next pass.
    return { taken: events.length, deleted: expired.length, lastSequence };
  });
}

/** Deletes every expired event, batch after batch; answers how many were deleted. */
export async function pruneExpiredEvents(services: Services, now = services.now(), batch = BATCH): Promise<number> {
  const cutoff = new Date(now.getTime() - services.config.events.retentionDays * DAY_MS);
  // Events are numbered in about the order they were created: the pass stops at the first one still kept, instead of
  // reading the whole table each time (one that committed out of order is pruned by a later pass).
  const [first] = await services.db.fork().execute<{ sequence: string | number }[]>(`select sequence from events where created_at >= ? order by sequence limit 1`, [cutoff]);
  const below = first ? Number(first.sequence) : Number.MAX_SAFE_INTEGER;
  let total = 0;
  let after = 0;
  for (;;) {
    const { taken, deleted, lastSequence } = await pruneEventsBatch(services.db.fork(), cutoff, now, batch, after, below);
    total += deleted;
    after = lastSequence;
    if (taken < batch) return total;
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
  }
}

/** Each node's timer for pruning (runtime/background-loop.ts: one pass at a time, quiet back-off while the database is out of reach). */
export class EventPruner {
  private readonly loop: BackgroundLoop;

  constructor(private readonly services: Services) {
    this.loop = new BackgroundLoop({
      name: 'event pruning',
      log: services.log,
      intervalMs: INTERVAL_MS,
      firstDelayMs: FIRST_PASS_MS,
      pass: async () => {
        const count = await pruneExpiredEvents(services);
        if (count > 0) services.log.info({ deleted: count, retentionDays: services.config.events.retentionDays }, 'pruned expired events');
      },
    });
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
