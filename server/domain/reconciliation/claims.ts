/**
 * Claims on reconciliation reads, shared by every node through the database,
 * like the webhook dispatcher's: one statement takes a short lease on the
 * due rows nobody holds (`SKIP LOCKED` lets nodes claim side by side), so each
 * due resource is read from its gateway by one node per step; a node that
 * dies mid-read leaves a lease that lapses, and the read is made again.
 */
import type { EntityClass } from '@mikro-orm/core';
import type { EntityManager } from '../../db/orm';
import { tableOf } from '../../db/rows';
import type { GatewayName } from '../../contract/enums';

export interface DueRead {
  id: string;
  gateway: GatewayName;
  /** Reads made so far (the schedule's step). */
  reads: number;
}

interface DueRow {
  id: string;
  gateway: GatewayName;
  reconcile_checks: number | string;
}

export async function claimDueReads(em: EntityManager, entity: EntityClass<object>, now: Date, limit: number, leaseMs: number): Promise<DueRead[]> {
  const { table } = tableOf(em, entity);
  const rows = await em.execute<DueRow[]>(
    `update ${table} set reconcile_lease_until = ?
     where id in (
       select id from ${table}
       where reconcile_at <= ? and (reconcile_lease_until is null or reconcile_lease_until < ?)
       order by reconcile_at
       limit ?
       for update skip locked
     )
     returning id, gateway, reconcile_checks`,
    [new Date(now.getTime() + leaseMs), now, now, limit],
  );
  return rows.map((row) => ({ id: row.id, gateway: row.gateway, reads: Number(row.reconcile_checks) }));
}

/**
 * Records a read made at `now` and when the next one is due (null: no more).
 * A resource that became final or was lost meanwhile has no next read
 * already, and keeps none.
 */
export async function finishRead(em: EntityManager, entity: EntityClass<object>, id: string, now: Date, next: Date | null): Promise<void> {
  const { table } = tableOf(em, entity);
  await em.execute(
    `update ${table} set reconcile_checks = reconcile_checks + 1, reconciled_at = ?, reconcile_lease_until = null,
       reconcile_at = case when reconcile_at is null then null else ?::timestamptz end
     where id = ?`,
    [now, next, id],
  );
}

/** Gives a claimed read back untouched (the gateway's budget is spent): the next pass takes it. */
export async function releaseRead(em: EntityManager, entity: EntityClass<object>, id: string): Promise<void> {
  const { table } = tableOf(em, entity);
  await em.execute(`update ${table} set reconcile_lease_until = null where id = ?`, [id]);
}
