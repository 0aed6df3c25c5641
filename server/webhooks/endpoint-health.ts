/**
 * What a merchant sees of how its endpoints are doing, next to each one in
 * the endpoint list: the share of attempts that succeeded over the last 24 h,
 * and the age of the oldest delivery still waiting (for its first attempt or,
 * with retries on, for its next one). One statement for a whole page of
 * endpoints, never one per endpoint.
 */
import type { EntityManager } from '../db/orm';

/** The window of the success rate. */
export const HEALTH_WINDOW_HOURS = 24;

export interface EndpointHealth {
  /** Attempts finished in the window, all triggers (first attempts, retries, resends). */
  attempts24h: number;
  /** Of those, the ones answered 2xx in time. */
  sent24h: number;
  /** sent24h / attempts24h, null when nothing was attempted in the window. */
  successRate24h: number | null;
  /** Seconds since the oldest PENDING delivery began to wait; null when nothing waits. */
  oldestPendingAgeSeconds: number | null;
}

interface HealthRow {
  endpoint_id: string;
  attempts: string | number | null;
  sent: string | number | null;
  oldest_pending_age: string | number | null;
}

const NONE: EndpointHealth = { attempts24h: 0, sent24h: 0, successRate24h: null, oldestPendingAgeSeconds: null };

/**
 * Health of each endpoint named. Attempts are found through their deliveries'
 * `(endpoint_id, last_attempt_at)` index: a delivery last attempted before the
 * window has no attempt in it. A delivery waits since it was created, except
 * one an operator queued again after it had failed ("resend all failed"),
 * which waits since it was queued (as the outbox-lag gauge counts it).
 */
export async function endpointHealth(em: EntityManager, endpointIds: string[]): Promise<Map<string, EndpointHealth>> {
  const health = new Map<string, EndpointHealth>();
  if (endpointIds.length === 0) return health;
  const marks = endpointIds.map(() => '?').join(', ');
  const rows = await em.execute<HealthRow[]>(
    `with window_start as (select clock_timestamp() - interval '${HEALTH_WINDOW_HOURS} hours' as at),
     attempts as (
       select d.endpoint_id, count(*) as attempts, count(*) filter (where a.outcome = 'SENT') as sent
       from webhook_deliveries d
       join webhook_attempts a on a.delivery_id = d.id
       where d.endpoint_id in (${marks}) and d.last_attempt_at >= (select at from window_start)
         and a.started_at >= (select at from window_start) and a.outcome is not null
       group by d.endpoint_id
     ),
     waiting as (
       select d.endpoint_id,
              extract(epoch from clock_timestamp() - min(case when d.attempt_count > 0 and d.next_attempt_at is null then d.updated_at else d.created_at end)) as age
       from webhook_deliveries d
       where d.status = 'PENDING' and d.endpoint_id in (${marks})
       group by d.endpoint_id
     )
     select coalesce(a.endpoint_id, w.endpoint_id) as endpoint_id, a.attempts, a.sent, w.age as oldest_pending_age
     from attempts a full join waiting w on w.endpoint_id = a.endpoint_id`,
    [...endpointIds, ...endpointIds],
  );
  for (const id of endpointIds) health.set(id, NONE);
  for (const row of rows) {
    const attempts = Number(row.attempts ?? 0);
    const sent = Number(row.sent ?? 0);
    health.set(row.endpoint_id, {
      attempts24h: attempts,
      sent24h: sent,
      successRate24h: attempts > 0 ? sent / attempts : null,
      oldestPendingAgeSeconds: row.oldest_pending_age == null ? null : Math.max(0, Math.round(Number(row.oldest_pending_age))),
    });
  }
  return health;
}
