/**
 * What operators see of reconciliation: how many unfinished resources wait
 * for a read and how many are overdue (the backlog), when the next is due,
 * and the resources themselves: those their gateway no longer knows first,
 * then the most overdue. One environment, or the whole platform.
 */
import type { EntityManager } from '../../db/orm';

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

interface CountRow {
  scheduled: number | string;
  overdue: number | string;
  lost: number | string;
  oldest_overdue: Date | string | null;
}

const iso = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());

/** Both tables' reconciliation columns as one relation, optionally of one environment. */
function bothKinds(environmentId: string | null): { sql: string; params: unknown[] } {
  const where = environmentId ? 'where environment_id = ?' : '';
  const columns = 'id, environment_id, gateway, gateway_ref, status, reconcile_at, reconciled_at, reconcile_checks, gateway_missing_at';
  return {
    sql: `(select 'payment' as kind, ${columns} from payments ${where} union all select 'subscription' as kind, ${columns} from subscriptions ${where}) as r`,
    params: environmentId ? [environmentId, environmentId] : [],
  };
}

export async function reconciliationStatus(em: EntityManager, now: Date, options: { environmentId: string | null; limit: number }): Promise<ReconciliationStatus> {
  const both = bothKinds(options.environmentId);
  const [counts] = await em.execute<CountRow[]>(
    `select count(reconcile_at) as scheduled,
            count(*) filter (where reconcile_at <= ?) as overdue,
            count(gateway_missing_at) as lost,
            min(reconcile_at) filter (where reconcile_at <= ?) as oldest_overdue
     from ${both.sql}
     where reconcile_at is not null or gateway_missing_at is not null`,
    [now, now, ...both.params],
  );
  const rows = await em.execute<ItemRow[]>(
    `select * from ${both.sql}
     where reconcile_at is not null or gateway_missing_at is not null
     order by (gateway_missing_at is null), gateway_missing_at desc, reconcile_at
     limit ?`,
    [...both.params, options.limit],
  );
  return {
    scheduled: Number(counts?.scheduled ?? 0),
    overdue: Number(counts?.overdue ?? 0),
    lost: Number(counts?.lost ?? 0),
    oldestOverdueAt: iso(counts?.oldest_overdue ?? null),
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
