/**
 * Where the monthly-quota admission counters live (domain/billing.ts says what
 * they mean): Redis with REDIS_URL, shared by every node; otherwise this
 * process's memory (the embedded single node). Both are seeded from the exact
 * count, never lock a row, and never make one create wait for another.
 */
import type { QuotaAdmission, QuotaCounter } from '../domain/billing';
import type { SharedStore } from './redis';

/** A counter outlives its month by some days; a missing one is seeded again from the exact count. */
const COUNTER_TTL_SECONDS = 40 * 24 * 3600;
const released = async () => {};

/** An admission whose release takes effect once, however often it is called (a failed create may release on several paths). */
function admittedOnce(release: () => Promise<void>): QuotaAdmission {
  let open = true;
  return {
    admitted: true,
    release: async () => {
      if (!open) return;
      open = false;
      await release();
    },
  };
}

export function createMemoryQuotaCounter(reconcileAfterMs: number, clock: () => number = Date.now): QuotaCounter {
  const counters = new Map<string, Promise<{ value: number; lastAdmitAt: number }>>();
  const claims = new Map<string, number>();
  return {
    async admit({ organizationId, period, limit, claim }, exact): Promise<QuotaAdmission> {
      const now = clock();
      const claimedUntil = claims.get(claim);
      if (claimedUntil !== undefined && claimedUntil > now) return { admitted: true, release: released };
      const key = `${organizationId}:${period}`;
      let entry = counters.get(key);
      if (!entry) {
        if (counters.size > 50_000) counters.clear();
        entry = exact().then((value) => ({ value, lastAdmitAt: 0 }));
        counters.set(key, entry);
        entry.catch(() => counters.delete(key));
      }
      const counter = await entry;
      if (counter.value >= limit && clock() - counter.lastAdmitAt > reconcileAfterMs) {
        const seenAt = counter.lastAdmitAt;
        const value = await exact();
        if (counter.lastAdmitAt === seenAt) counter.value = value;
      }
      if (counter.value >= limit) return { admitted: false };
      const again = claims.get(claim);
      if (again !== undefined && again > clock()) return { admitted: true, release: released };
      if (claims.size > 50_000) for (const [name, until] of claims) if (until <= clock()) claims.delete(name);
      claims.set(claim, clock() + reconcileAfterMs);
      counter.value++;
      counter.lastAdmitAt = clock();
      return admittedOnce(async () => {
        if (counter.value > 0) counter.value--;
        claims.delete(claim);
      });
    },
  };
}

/** KEYS: count, last admission, claim. ARGV: limit, now (ms), counter ttl (s), claim ttl (ms). 1 admitted, 2 already claimed, 0 refused, -1 not seeded. */
const ADMIT = `
if redis.call('EXISTS', KEYS[3]) == 1 then return {2, '0'} end
local v = redis.call('GET', KEYS[1])
if not v then return {-1, '0'} end
v = tonumber(v)
if v < tonumber(ARGV[1]) then
  redis.call('INCR', KEYS[1])
  redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
  redis.call('SET', KEYS[3], '1', 'PX', ARGV[4])
  return {1, tostring(v + 1)}
end
return {0, redis.call('GET', KEYS[2]) or '0'}`;

/** Replaces the counter by the exact count only if nothing was admitted since the refusal saw `last`. */
const RECONCILE = `
if (redis.call('GET', KEYS[2]) or '0') ~= ARGV[2] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[3])
return 1`;

const RELEASE = `
redis.call('DEL', KEYS[2])
local v = redis.call('GET', KEYS[1])
if v and tonumber(v) > 0 then redis.call('DECR', KEYS[1]) end
return 1`;

type QuotaCommands = {
  quotaAdmit(count: string, last: string, claim: string, limit: number, now: number, ttl: number, claimTtlMs: number): Promise<[number, string]>;
  quotaReconcile(count: string, last: string, exact: number, seenLast: string, ttl: number): Promise<number>;
  quotaRelease(count: string, claim: string): Promise<number>;
};

/**
 * Redis counters. While Redis is unreachable the exact count decides alone
 * (one query per create): creates still never wait for each other, and a
 * burst of one organization's concurrent creates can overshoot the quota by
 * at most the number of its creates in flight at once.
 */
export function createRedisQuotaCounter(store: SharedStore, reconcileAfterMs: number): QuotaCounter {
  const redis = store.client as unknown as typeof store.client & QuotaCommands;
  redis.defineCommand('quotaAdmit', { numberOfKeys: 3, lua: ADMIT });
  redis.defineCommand('quotaReconcile', { numberOfKeys: 2, lua: RECONCILE });
  redis.defineCommand('quotaRelease', { numberOfKeys: 2, lua: RELEASE });

  const fallback = async (limit: number, exact: () => Promise<number>, error?: unknown): Promise<QuotaAdmission> => {
    store.degraded('quota', error);
    return (await exact()) < limit ? { admitted: true, release: released } : { admitted: false };
  };

  return {
    async admit({ organizationId, period, limit, claim }, exact): Promise<QuotaAdmission> {
      if (!store.ready()) return fallback(limit, exact);
      const base = `${store.prefix}quota:{${organizationId}:${period}}`;
      const count = `${base}:n`;
      const last = `${base}:last`;
      const claimKey = `${base}:claim:${claim}`;
      const admit = () => redis.quotaAdmit(count, last, claimKey, limit, Date.now(), COUNTER_TTL_SECONDS, reconcileAfterMs);
      try {
        let [outcome, lastAdmitAt] = await admit();
        if (outcome === -1) {
          await redis.set(count, await exact(), 'EX', COUNTER_TTL_SECONDS, 'NX');
          [outcome, lastAdmitAt] = await admit();
        }
        if (outcome === 0 && Date.now() - Number(lastAdmitAt) > reconcileAfterMs) {
          if (await redis.quotaReconcile(count, last, await exact(), lastAdmitAt, COUNTER_TTL_SECONDS)) [outcome] = await admit();
        }
        // Another create of this externalId holds the admission: this one will answer its payment.
        if (outcome === 2) return { admitted: true, release: released };
        if (outcome !== 1) return { admitted: false };
        // A release that cannot reach Redis leaves the counter one high: a later reconciliation corrects it.
        return admittedOnce(async () => {
          await redis.quotaRelease(count, claimKey).catch((error: unknown) => store.degraded('quota', error));
        });
      } catch (error) {
        return fallback(limit, exact, error);
      }
    },
  };
}
