/**
 * Rate limits: fixed one-minute windows per API key and route bucket. The
 * buckets and the answer a limiter gives are the domain's words; where the
 * counters live (memory, a shared store) is chosen at start-up
 * (runtime/rate-limit-stores.ts).
 */
export const RATE_LIMIT_BUCKETS = ['payments_create', 'payments_sync', 'payments_cancel', 'default'] as const;
/** A limit that can be configured (per service and per key). */
export type RateLimitBucket = (typeof RATE_LIMIT_BUCKETS)[number];

/**
 * Routes counted in a window of their own under another bucket's configured
 * limit: subscription sync has payment sync's limit (decision 20) without
 * sharing its quota, so syncing subscriptions never uses up payment syncs;
 * refund creation has payment cancel's (10 per minute by default, decision
 * 18), so refunding never uses up cancels, nor the other way round.
 */
export const SHARED_LIMIT_QUOTAS = { subscriptions_sync: 'payments_sync', refunds_create: 'payments_cancel' } as const satisfies Record<string, RateLimitBucket>;

/** A window of counted requests: a bucket's own, or one of the quotas above. */
export type RateLimitQuota = RateLimitBucket | keyof typeof SHARED_LIMIT_QUOTAS;

/** The configured limit a quota counts against. */
export const limitBucketOf = (quota: RateLimitQuota): RateLimitBucket => (quota in SHARED_LIMIT_QUOTAS ? SHARED_LIMIT_QUOTAS[quota as keyof typeof SHARED_LIMIT_QUOTAS] : (quota as RateLimitBucket));

export const RATE_LIMIT_WINDOW_SECONDS = 60;

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix time (seconds) when the current window ends. */
  resetAt: number;
  /** Seconds to wait before retrying; 0 when allowed. */
  retryAfter: number;
}

export interface RateLimiter {
  consume(quota: RateLimitQuota, apiKeyId: string, limit: number): Promise<RateLimitDecision>;
  close(): Promise<void>;
}
