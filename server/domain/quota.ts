/**
 * Admission to an organization's monthly quota: the number of payments
 * accepted in a month never exceeds its limit, whatever happens (concurrent
 * creates on any number of nodes, gateway errors and retries, a limit changed
 * in the month, a process dying half-way, Redis gone).
 *
 * The truth is one counter row per organization and month in the database
 * (`quota_counters`): the payments admitted, registered or still in flight.
 * An admission is one conditional increment (`admitted < limit`), in a
 * statement of its own: its row is held for that statement only, never across
 * a gateway call, so creates of one organization do not queue behind each
 * other. A create that ends without a payment that can still be registered
 * gives its admission back (one decrement).
 *
 * The counter only ever errs high (a process that died after its admission,
 * before its insert), which refuses too early, never too late: a refusal
 * reconciles it with the exact count when nothing has been admitted for
 * longer than a registration can take. The exact count is the month's
 * registered payments (usage rows and the operator's base) plus the payments
 * still being registered (rows without a gateway reference), so a payment in
 * flight is never forgotten.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EntityManager } from '../db/orm';
import { quotaRefusals } from '../observability/metrics';

export interface QuotaAdmission {
  /** Gives the admission back: the create ended without a payment that can still be registered. Once only. */
  release(): Promise<void>;
}

/** Admitted; `refused`: no room this month; `taken`: another create of this externalId inserted its payment, answer that one. */
export type QuotaDecision = QuotaAdmission | 'refused' | 'taken';

/** `YYYY-MM` of the given instant in UTC: quotas reset at the start of each UTC month. */
export const usagePeriod = (at: Date): string => at.toISOString().slice(0, 7);

/** The month `period` as a half-open range of instants. */
function periodRange(period: string): [Date, Date] {
  const start = new Date(`${period}-01T00:00:00.000Z`);
  const end = new Date(start);
  end.setUTCMonth(end.getUTCMonth() + 1);
  return [start, end];
}

/** The month's registered payments (see transactionsUsed); IN_FLIGHT_SQL: its payments still being registered. */
const USED_SQL = `coalesce((select transactions from monthly_usage where organization_id = ? and period = ?), 0)
  + (select count(*) from transaction_usage where organization_id = ? and period = ?)`;
const IN_FLIGHT_SQL = `(select count(*) from payments pay
     join environments env on env.id = pay.environment_id
     join projects pro on pro.id = env.project_id
    where pro.organization_id = ? and pay.gateway_ref is null and pay.created_at >= ? and pay.created_at < ?)`;

const usedParams = (organizationId: string, period: string) => [organizationId, period, organizationId, period];

/**
 * The month's `used`: the period's base (`monthly_usage`: counted before
 * per-payment usage existed, or an operator's adjustment) plus one
 * `transaction_usage` row per payment its gateway accepted. Once requests
 * settle it is exactly what was created.
 */
export async function transactionsUsed(em: EntityManager, organizationId: string, period: string): Promise<number> {
  const [row] = await em.getConnection().execute<{ used: string | number }[]>(`select ${USED_SQL} as used`, usedParams(organizationId, period));
  return Number(row?.used ?? 0);
}

/** Registered and in-flight payments of the month: what the counter must hold when nothing is between admission and insert. */
async function admittedExactly(em: EntityManager, organizationId: string, period: string): Promise<number> {
  const [start, end] = periodRange(period);
  const [row] = await em.getConnection().execute<{ n: string | number }[]>(`select ${USED_SQL} + ${IN_FLIGHT_SQL} as n`, [
    ...usedParams(organizationId, period),
    organizationId,
    start,
    end,
  ]);
  return Number(row?.n ?? 0);
}

/**
 * Claims the externalId and counts it, in one statement: the counter is
 * incremented only if this create's claim was inserted and there is room.
 * `claimed` 0: another create of this externalId holds the claim.
 */
const CLAIM_AND_COUNT = `with claimed as (
    insert into quota_claims (environment_id, external_id, organization_id, period, token, created_at) values (?, ?, ?, ?, ?, ?)
    on conflict (environment_id, external_id) do nothing returning token
  ), counted as (
    update quota_counters set admitted = admitted + 1, last_admit_at = ?
     where organization_id = ? and period = ? and admitted < ? and exists (select 1 from claimed) returning generation
  )
  select (select count(*) from claimed) as claimed, (select generation from counted) as generation`;

/**
 * The month's counter, seeded with the exact count when it does not exist
 * yet (two creates seeding at once: one insert wins, the same count). The
 * organization's claims of earlier months go with it.
 */
const SEED = `insert into quota_counters (organization_id, period, generation, admitted, last_admit_at)
  select ?, ?, ?, ${USED_SQL} + ${IN_FLIGHT_SQL}, ? on conflict (organization_id, period) do nothing`;

/** Gives an admission back to the counter that counted it, if its claim is still this create's. */
const RELEASE = `with gone as (delete from quota_claims where environment_id = ? and external_id = ? and token = ? returning 1)
  update quota_counters set admitted = admitted - 1
   where organization_id = ? and period = ? and generation = ? and admitted > 0 and exists (select 1 from gone)`;

/** Replaces a counter by the exact count, unless something was admitted since `seen` was read. */
const RECONCILE = `update quota_counters set admitted = ? where organization_id = ? and period = ? and last_admit_at = ?`;

export interface QuotaRequest {
  organizationId: string;
  period: string;
  limit: number;
  /** The create: its environment and externalId (concurrent creates of one externalId are one payment). */
  environmentId: string;
  externalId: string;
  /** The service's clock (the month was chosen from it). */
  clock: () => Date;
  /** How long a registration can take: a counter untouched for longer holds no admission still on its way to an insert. */
  reconcileAfterMs: number;
}

/** How often a create waits for the one holding its externalId's claim: until that one inserts its payment or gives up. */
const CLAIM_POLL_MS = 50;

/**
 * Admits one payment if the month has room for it. A create whose externalId
 * another create holds waits until that one has inserted its payment (then
 * it answers that payment, never inserting one of its own) or given its
 * admission back (then it tries itself). Each statement commits on its own
 * (no transaction is open on `em`).
 */
export async function admit(em: EntityManager, request: QuotaRequest): Promise<QuotaDecision> {
  const connection = em.getConnection();
  const { organizationId, period, limit, environmentId, externalId } = request;
  const token = randomBytes(12).toString('base64url');
  let ensured = false;
  let reconciledOnce = false;
  for (;;) {
    const now = request.clock();
    const [outcome] = await connection.execute<{ claimed: string | number; generation: string | null }[]>(CLAIM_AND_COUNT, [
      environmentId, externalId, organizationId, period, token, now,
      now, organizationId, period, limit,
    ]);
    const generation = outcome?.generation;
    if (generation) return admission(em, { ...request, token, generation });
    if (Number(outcome?.claimed) === 1) {
      // Claimed but not counted: no counter yet, or no room. The claim is not this create's to keep.
      await connection.execute(`delete from quota_claims where environment_id = ? and external_id = ? and token = ?`, [environmentId, externalId, token]);
      // The month's first admissions find no counter: one seeds it, and every one of them tries again.
      if (!ensured) {
        await ensureCounter(em, request);
        ensured = true;
        continue;
      }
      if (!reconciledOnce && (await reconciled(em, request))) {
        reconciledOnce = true;
        continue;
      }
      quotaRefusals.inc();
      return 'refused';
    }
    if (await claimHolderDone(em, request)) return 'taken';
    await sleep(CLAIM_POLL_MS);
  }
}

function admission(em: EntityManager, held: QuotaRequest & { token: string; generation: string }): QuotaAdmission {
  let open = true;
  return {
    release: async () => {
      if (!open) return;
      open = false;
      const { environmentId, externalId, token, organizationId, period, generation } = held;
      await em.getConnection().execute(RELEASE, [environmentId, externalId, token, organizationId, period, generation]);
    },
  };
}

/** Creates the month's counter if missing, dropping the organization's claims of earlier months. */
async function ensureCounter(em: EntityManager, request: QuotaRequest): Promise<void> {
  const { organizationId, period } = request;
  const connection = em.getConnection();
  const [existing] = await connection.execute<unknown[]>(`select 1 from quota_counters where organization_id = ? and period = ?`, [organizationId, period]);
  if (existing) return;
  const [start, end] = periodRange(period);
  await connection.execute(SEED, [organizationId, period, randomBytes(12).toString('base64url'), ...usedParams(organizationId, period), organizationId, start, end, request.clock()]);
  await connection.execute(`delete from quota_claims where organization_id = ? and period < ?`, [organizationId, period]);
}

/**
 * For a create whose externalId another create holds: true once that one has
 * inserted its payment. A
 * claim gone, or left by a create that died before its insert (older than a
 * registration can take), lets this create try to be admitted itself: false,
 * after removing a dead claim.
 */
async function claimHolderDone(em: EntityManager, request: QuotaRequest): Promise<boolean> {
  const { environmentId, externalId, reconcileAfterMs } = request;
  const connection = em.getConnection();
  const [payment] = await connection.execute<unknown[]>(`select 1 from payments where environment_id = ? and external_id = ?`, [environmentId, externalId]);
  if (payment) return true;
  await connection.execute(`delete from quota_claims where environment_id = ? and external_id = ? and created_at < ?`, [
    environmentId,
    externalId,
    new Date(request.clock().getTime() - reconcileAfterMs),
  ]);
  return false;
}

/**
 * On a refusal: a counter with no admission for reconcileAfterMs can only be
 * high by admissions whose creates died; it is set to the exact count. True
 * when that made it lower.
 */
async function reconciled(em: EntityManager, request: QuotaRequest): Promise<boolean> {
  const { organizationId, period, reconcileAfterMs } = request;
  const connection = em.getConnection();
  const [counter] = await connection.execute<{ admitted: number; last_admit_at: Date | string }[]>(
    `select admitted, last_admit_at from quota_counters where organization_id = ? and period = ?`,
    [organizationId, period],
  );
  if (!counter) return false;
  const seen = new Date(counter.last_admit_at);
  if (request.clock().getTime() - seen.getTime() <= reconcileAfterMs) return false;
  const exact = await admittedExactly(em, organizationId, period);
  if (exact >= counter.admitted) return false;
  await connection.execute(RECONCILE, [exact, organizationId, period, seen]);
  return true;
}

/**
 * A limit set on an organization that had none: its counter (if any) stopped
 * counting while there was no limit, so it is dropped and the next admission
 * seeds it from the exact count.
 */
export async function forgetQuotaCounters(em: EntityManager, organizationId: string): Promise<void> {
  // In the caller's transaction when there is one (an audited billing change): a second connection would wait on it.
  await em.getConnection().execute(`delete from quota_counters where organization_id = ?`, [organizationId], 'run', em.getTransactionContext());
}
