/**
 * Log-in throttle: failed attempts are counted per e-mail and client address
 * (guessing one person's password) and per client address (spraying many
 * accounts). The counters live where the rate limits live (Redis with
 * REDIS_URL, shared by every node; memory on the embedded single node): see
 * runtime/login-throttle-stores.ts.
 */

/** Failures of one e-mail from one address in 15 minutes. */
export const EMAIL_FAILURES = { points: 5, seconds: 15 * 60 };
/** Failures from one address in an hour, whatever the e-mail. */
export const ADDRESS_FAILURES = { points: 50, seconds: 60 * 60 };

export interface LoginThrottle {
  /** Seconds before this e-mail may be tried again from this address; 0 when it may now. */
  blockedFor(email: string, address: string): Promise<number>;
  /** Counts a failed attempt. */
  failed(email: string, address: string): Promise<void>;
  /** A success forgets this e-mail's failures from this address (not the address's). */
  succeeded(email: string, address: string): Promise<void>;
  close(): Promise<void>;
}
