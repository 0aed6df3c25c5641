/**
 * The outbox lag, read when Prometheus scrapes: the age of the oldest event
 * not yet delivered. An event waits first to be fanned out (`events` without
 * `dispatched_at`), then in each of its `PENDING` deliveries; a delivery an
 * operator queued again (it had attempts) waits since it was queued, not since
 * its event was committed days ago. 0 when nothing waits. One statement,
 * served by the indexes on `events (dispatched_at, sequence)` and
 * `webhook_deliveries (status, …)`.
 */
import type { Database } from '../db/orm';
import { registerCollectedGauge } from './metrics';

const OLDEST_WAITING = `select greatest(0, coalesce(extract(epoch from clock_timestamp() - least(
    (select min(created_at) from events where dispatched_at is null),
    (select min(case when d.attempt_count = 0 then e.created_at else d.updated_at end)
       from webhook_deliveries d join events e on e.id = d.event_id where d.status = 'PENDING')
  )), 0)) as age`;

/** Registers the gauge on this service's database; returns its unregistration (at shutdown). */
export function registerOutboxLag(db: Database): () => void {
  return registerCollectedGauge({
    name: 'outbox_oldest_undelivered_event_age_seconds',
    help: 'Age of the oldest committed event not yet delivered to every endpoint it goes to (0: nothing waits).',
    collect: async () => {
      const [row] = await db.fork().getConnection().execute<{ age: string | number | null }[]>(OLDEST_WAITING);
      return Number(row?.age ?? 0);
    },
  });
}
