/**
 * Where rate-limit counters live. On PostgreSQL they are a table shared by
 * every service node (so N nodes behind a load balancer enforce one limit);
 * on the embedded single-node database they live in memory.
 */
import type { Pool } from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { RATE_LIMIT_WINDOW_SECONDS, type RateLimitDecision, type RateLimiter } from '../domain/rate-limits';

function decide(limit: number, res: RateLimiterRes, allowed: boolean): RateLimitDecision {
  const msLeft = Math.max(0, res.msBeforeNext);
  return {
    allowed,
    limit,
    remaining: Math.max(0, limit - res.consumedPoints),
    resetAt: Math.ceil((Date.now() + msLeft) / 1000),
    retryAfter: allowed ? 0 : Math.max(1, Math.ceil(msLeft / 1000)),
  };
}

/**
 * One limiter instance per distinct limit value. Postgres instances share one
 * table keyed by bucket and key; memory instances keep separate maps, so a
 * key whose limit is changed starts a fresh window.
 */
function createLimiter(build: (points: number) => Promise<RateLimiterAbstract>, onClose: () => Promise<void>): RateLimiter {
  const byPoints = new Map<number, Promise<RateLimiterAbstract>>();
  return {
    async consume(bucket, apiKeyId, limit) {
      let limiter = byPoints.get(limit);
      if (!limiter) {
        limiter = build(limit);
        byPoints.set(limit, limiter);
      }
      const instance = await limiter;
      try {
        return decide(limit, await instance.consume(`${bucket}:${apiKeyId}`), true);
      } catch (rejection) {
        // rate-limiter-flexible rejects with a RateLimiterRes when the window is full, with an Error on store failure.
        if (rejection instanceof RateLimiterRes) return decide(limit, rejection, false);
        throw rejection;
      }
    },
    close: onClose,
  };
}

export function createMemoryRateLimiter(): RateLimiter {
  return createLimiter(async (points) => new RateLimiterMemory({ points, duration: RATE_LIMIT_WINDOW_SECONDS, keyPrefix: 'rl' }), async () => {});
}

export function createPostgresRateLimiter(pool: Pool): RateLimiter {
  return createLimiter(
    (points) =>
      new Promise((resolve, reject) => {
        const limiter = new RateLimiterPostgres(
          {
            storeClient: pool,
            storeType: 'pool',
            tableName: 'rate_limit_counters',
            keyPrefix: 'rl',
            points,
            duration: RATE_LIMIT_WINDOW_SECONDS,
            clearExpiredByTimeout: false,
          },
          (err?: Error) => (err ? reject(err) : resolve(limiter)),
        );
      }),
    () => pool.end(),
  );
}
