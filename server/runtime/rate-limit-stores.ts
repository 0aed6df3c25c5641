/**
 * Where rate-limit counters live. With REDIS_URL they are Redis counters
 * shared by every service node (N nodes behind a load balancer enforce one
 * limit); without it (the embedded single-node default) they live in memory.
 * A fixed window is one atomic INCR with its expiry: no request waits for
 * another one, nothing is locked, nothing is written to disk per request.
 *
 * When Redis is unreachable or slow the limiter fails open to a per-node
 * in-memory window (rate-limiter-flexible's insurance limiter): payments keep
 * flowing and every node still enforces the limit on its own share of the
 * traffic, so the effective limit is at most the number of nodes times the
 * configured one until Redis answers again.
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { RATE_LIMIT_WINDOW_SECONDS, type RateLimitDecision, type RateLimiter } from '../domain/rate-limits';
import type { SharedStore } from './redis';
import { rateLimitRefusals } from '../observability/metrics';

function decide(limit: number, res: RateLimiterRes, allowed: boolean, nowMs: number): RateLimitDecision {
  const msLeft = Math.max(0, res.msBeforeNext);
  return {
    allowed,
    limit,
    remaining: Math.max(0, limit - res.consumedPoints),
    resetAt: Math.ceil((nowMs + msLeft) / 1000),
    retryAfter: allowed ? 0 : Math.max(1, Math.ceil(msLeft / 1000)),
  };
}

/**
 * One limiter instance per distinct limit value (built once, synchronously).
 * Redis instances share one key per bucket and API key, so a changed limit
 * applies to the current window; memory instances keep separate maps, so a
 * key whose limit is changed starts a fresh window.
 */
function createLimiter(build: (points: number) => RateLimiterAbstract, onClose: () => Promise<void>): RateLimiter {
  const byPoints = new Map<number, RateLimiterAbstract>();
  return {
    async consume(bucket, apiKeyId, limit) {
      let limiter = byPoints.get(limit);
      if (!limiter) {
        limiter = build(limit);
        byPoints.set(limit, limiter);
      }
      try {
        return decide(limit, await limiter.consume(`${bucket}:${apiKeyId}`), true, Date.now());
      } catch (rejection) {
        // rate-limiter-flexible rejects with a RateLimiterRes when the window is full, with an Error on store failure.
        if (rejection instanceof RateLimiterRes) return decide(limit, rejection, false, Date.now());
        throw rejection;
      }
    },
    close: onClose,
  };
}

const memoryLimiter = (points: number) => new RateLimiterMemory({ points, duration: RATE_LIMIT_WINDOW_SECONDS, keyPrefix: 'rl' });

/** The per-node window used only while Redis fails; says so in the log (throttled). */
class FallbackWindow extends RateLimiterMemory {
  constructor(
    private readonly store: SharedStore,
    points: number,
  ) {
    super({ points, duration: RATE_LIMIT_WINDOW_SECONDS, keyPrefix: 'rl' });
  }
  override consume(key: string | number, pointsToConsume?: number, options?: Record<string, unknown>): Promise<RateLimiterRes> {
    this.store.degraded('rate-limit');
    return super.consume(key, pointsToConsume, options);
  }
}

export function createMemoryRateLimiter(): RateLimiter {
  return createLimiter(memoryLimiter, async () => {});
}

/** Counters in Redis, shared by every node; a per-node memory window while Redis is unreachable (fail open, logged). */
export function createRedisRateLimiter(store: SharedStore): RateLimiter {
  return createLimiter(
    (points) =>
      new RateLimiterRedis({
        storeClient: store.client,
        keyPrefix: `${store.prefix}rl`,
        points,
        duration: RATE_LIMIT_WINDOW_SECONDS,
        // Not connected: straight to the per-node window instead of waiting for a command timeout.
        rejectIfRedisNotReady: true,
        insuranceLimiter: new FallbackWindow(store, points),
      }),
    async () => {},
  );
}

/** The limiter as the service uses it: each refusal is counted by bucket (rate_limit_refusals_total), whatever store decides. */
export function countingRefusals(limiter: RateLimiter): RateLimiter {
  return {
    async consume(bucket, apiKeyId, limit) {
      const decision = await limiter.consume(bucket, apiKeyId, limit);
      if (!decision.allowed) rateLimitRefusals.inc({ bucket });
      return decision;
    },
    close: () => limiter.close(),
  };
}
