/**
 * What operators see of reconciliation: how many unfinished resources wait
 * for a read and how many are overdue (the backlog), when the next is due,
 * and the resources themselves: those their gateway no longer knows first,
 * then the most overdue. One environment, or the whole platform.
 *
 * Bounded whatever the tables hold (decision 25): each count reads at most
 * 10,001 entries of a partial index (migration reconciliation_status_indexes)
 * and is exact up to 10,000, then flagged in `more`; the items are the first
 * `limit` of each table in index order, merged.
 */
import type { EntityManager } from '../../db/orm';
import { EXACT_COUNT_LIMIT } from '../listing/total';

export interface ReconciliationItem {
  kind: 'payment' | 'subscription';
  id: string;
  environmentId: string;
  gateway: string;
  gatewayRef: string | null;
  status: string;
  /** When the next read is due; null when none is (the gateway lost it). */
  nextReadAt: string | null;
  /** The last read; null before the first. */
  lastReadAt: string | null;
  reads: number;
  /** When the gateway answered it does not know the resource; null otherwise. */
  lostAt: string | null;
}

export interface ReconciliationStatus {
  /** Unfinished resources with a read scheduled. */
  scheduled: number;
  /** Of those, due now or earlier (the backlog). */
  overdue: number;
  /** Resources their gateway no longer knows. */
  lost: number;
  /** The oldest due time still waiting; null when nothing is overdue. */
  oldestOverdueAt: string | null;
  /** Which counts stopped at 10,000: there are more ("10,000+"). */
  more: { scheduled: boolean; overdue: boolean; lost: boolean };
  items: ReconciliationItem[];
}

interface ItemRow {
  kind: 'payment' | 'subscription';
  id: string;
  environment_id: string;
  gateway: string;
  gateway_ref: string | null;
  status: string;
  reconcile_at: Date | string | null;
  reconciled_at: Date | string | null;
  reconcile_checks: number | string;
  gateway_missing_at: Date | string | null;
}

const iso = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());

const TABLES = [
  { kind: 'payment', table: 'payments' },
  { kind: 'subscription', table: 'subscriptions' },
] as const;
const COLUMNS = 'id, environment_id, gateway, gateway_ref, status, reconcile_at, reconciled_at, reconcile_checks, gateway_missing_at';

/** `where` of one table, optionally of one environment. */
function scoped(condition: string, environmentId: string | null): { sql: string; params: unknown[] } {
  return environmentId ? { sql: `where environment_id = ? and ${condition}`, params: [environmentId] } : { sql: `where ${condition}`, params: [] };
}

/**
 * Rows of both tables matching `condition`, counted over at most EXACT_COUNT_LIMIT + 1 of each, read in the order of
 * `column` (a partial index's): the planner then walks the index instead of scanning the table for the first matches.
 */
async function boundedCount(em: EntityManager, condition: string, column: string, params: unknown[], environmentId: string | null): Promise<{ count: number; more: boolean }> {
  const where = scoped(condition, environmentId);
  const parts = TABLES.map(({ table }) => `(select count(*) from (select 1 from ${table} ${where.sql} order by ${column} limit ${EXACT_COUNT_LIMIT + 1}) as bounded)`);
  const [row] = await em.execute<{ count: string | number }[]>(`select ${parts.join(' + ')} as count`, [...where.params, ...params, ...where.params, ...params]);
  const count = Number(row?.count ?? 0);
  return { count: Math.min(count, EXACT_COUNT_LIMIT), more: count > EXACT_COUNT_LIMIT };
}

/** The earliest overdue read of both tables: the first entry of each one's due index. */
async function oldestOverdue(em: EntityManager, now: Date, environmentId: string | null): Promise<Date | string | null> {
  const where = scoped('reconcile_at <= ?', environmentId);
  const parts = TABLES.map(({ table }) => `(select reconcile_at from ${table} ${where.sql} order by reconcile_at limit 1)`);
  const [row] = await em.execute<{ oldest: Date | string | null }[]>(`select least(${parts.join(', ')}) as oldest`, [...where.params, now, ...where.params, now]);
  return row?.oldest ?? null;
}

/** The first `limit` rows of both tables in one order: each table's first `limit` by its index, merged. */
function firstOfBoth(em: EntityManager, condition: string, order: string, environmentId: string | null, limit: number): Promise<ItemRow[]> {
  const where = scoped(condition, environmentId);
  const parts = TABLES.map(({ kind, table }) => `(select '${kind}' as kind, ${COLUMNS} from ${table} ${where.sql} order by ${order} limit ?)`);
  return em.execute<ItemRow[]>(`select * from (${parts.join(' union all ')}) as r order by ${order} limit ?`, [...where.params, limit, ...where.params, limit, limit]);
}

export async function reconciliationStatus(em: EntityManager, now: Date, options: { environmentId: string | null; limit: number }): Promise<ReconciliationStatus> {
  const { environmentId, limit } = options;
  // One after another: the operation may run on one connection (a transaction's), which takes one query at a time.
  const scheduled = await boundedCount(em, 'reconcile_at is not null', 'reconcile_at', [], environmentId);
  const overdue = await boundedCount(em, 'reconcile_at <= ?', 'reconcile_at', [now], environmentId);
  const lost = await boundedCount(em, 'gateway_missing_at is not null', 'gateway_missing_at', [], environmentId);
  const oldest = overdue.count > 0 ? await oldestOverdue(em, now, environmentId) : null;
  // What their gateway lost first (most recently lost first), then the next reads due.
  const rows = await firstOfBoth(em, 'gateway_missing_at is not null', 'gateway_missing_at desc', environmentId, limit);
  if (rows.length < limit) rows.push(...(await firstOfBoth(em, 'reconcile_at is not null and gateway_missing_at is null', 'reconcile_at', environmentId, limit - rows.length)));
  return {
    scheduled: scheduled.count,
    overdue: overdue.count,
    lost: lost.count,
    oldestOverdueAt: iso(oldest),
    more: { scheduled: scheduled.more, overdue: overdue.more, lost: lost.more },
    items: rows.map((row) => ({
      kind: row.kind,
      id: row.id,
      environmentId: row.environment_id,
      gateway: row.gateway,
      gatewayRef: row.gateway_ref,
      status: row.status,
      nextReadAt: iso(row.reconcile_at),
      lastReadAt: iso(row.reconciled_at),
      reads: Number(row.reconcile_checks),
      lostAt: iso(row.gateway_missing_at),
    })),
  };
}
