/**
 * When to retry and how long to wait. Retrying is safe for this API because
 * creation is idempotent by `externalId` and reads have no effect: a create
 * repeated after a lost answer returns the payment the first attempt made.
 */

/** 429 (rate limit) and the 5xx answers the contract marks as transient. 501 is not: the gateway lacks the action. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

export interface BackoffOptions {
  /** First retry waits up to this long (before jitter). */
  baseDelayMs: number;
  /** No computed wait exceeds this. */
  maxDelayMs: number;
  random?: () => number;
}

/**
 * Exponential backoff with full jitter: a uniformly random wait in
 * [0, min(max, base · 2^retry)], so many clients failing together do not retry together.
 */
export function backoffDelayMs(retry: number, options: BackoffOptions): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** retry);
  return Math.floor((options.random ?? Math.random)() * ceiling);
}

/** `Retry-After` in seconds: either delta-seconds or an HTTP date (RFC 9110 10.2.3). */
export function parseRetryAfter(value: string | null, nowMs = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - nowMs) / 1000));
}

/** Resolves after `ms`, or rejects at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
