/**
 * Rate limits: fixed one-minute windows per API key and route bucket. The
 * buckets and the answer a limiter gives are the domain's words; where the
 * counters live (memory, a shared store) is chosen at start-up
 * (runtime/rate-limit-stores.ts).
 */
export const RATE_LIMIT_BUCKETS = ['payments_create', 'payments_sync', 'payments_cancel', 'default'] as const;
export type RateLimitBucket = (typeof RATE_LIMIT_BUCKETS)[number];

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
  consume(bucket: RateLimitBucket, apiKeyId: string, limit: number): Promise<RateLimitDecision>;
  close(): Promise<void>;
}
