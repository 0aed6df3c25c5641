/**
 * The webhook deliveries an environment still owes its endpoints, for Home:
 * how many are queued (PENDING: waiting for their first attempt or for a
 * retry), how many failed for good, and since when the oldest queued one
 * waits. Every read walks the (environment_id, status, event_sequence, id)
 * index: the counts stop at EXACT_COUNT_LIMIT + 1 entries (decision 25:
 * exact up to 10,000, then "10,000+"), the oldest is its first entry.
 */
import type { EntityManager } from '../../db/orm';
import { EXACT_COUNT_LIMIT } from './total';

export interface CappedCount {
  count: number;
  /** More than EXACT_COUNT_LIMIT: `count` shows EXACT_COUNT_LIMIT ("10,000+"). */
  more: boolean;
}

/** The deliveries of an environment in one status, counted over at most EXACT_COUNT_LIMIT + 1 index entries. */
export async function deliveriesInStatus(em: EntityManager, environmentId: string, status: 'PENDING' | 'FAILED'): Promise<CappedCount> {
  const [row] = await em.execute<{ count: string | number }[]>(
    `select count(*) as count from (select 1 from webhook_deliveries where environment_id = ? and status = ? limit ?) as bounded`,
    [environmentId, status, EXACT_COUNT_LIMIT + 1],
  );
  const count = Number(row?.count ?? 0);
  return { count: Math.min(count, EXACT_COUNT_LIMIT), more: count > EXACT_COUNT_LIMIT };
}

/** When the queued delivery of the earliest event was created: the index's first PENDING entry. */
async function oldestQueuedAt(em: EntityManager, environmentId: string): Promise<string | null> {
  const [row] = await em.execute<{ created_at: Date | string }[]>(
    `select created_at from webhook_deliveries where environment_id = ? and status = 'PENDING' order by event_sequence, id limit 1`,
    [environmentId],
  );
  return row ? new Date(row.created_at).toISOString() : null;
}

export async function deliveryBacklog(em: EntityManager, environmentId: string) {
  const [queued, failed, oldest] = await Promise.all([
    deliveriesInStatus(em, environmentId, 'PENDING'),
    deliveriesInStatus(em, environmentId, 'FAILED'),
    oldestQueuedAt(em, environmentId),
  ]);
  return { queued, failed, oldestQueuedAt: oldest };
}
