/**
 * The Redis connection behind the counters every node shares (REDIS_URL):
 * rate limits, the log-in throttle and the API-key cache epoch. Redis is
 * never on the critical path of correctness: when it is unreachable, each
 * user of this client falls back (per-node rate limits, no key cache), so
 * commands fail fast instead of queueing. The monthly quota does not depend
 * on it (domain/quota.ts).
 */
import { Redis } from 'ioredis';
import type { Logger } from './logger';

export interface SharedStore {
  client: Redis;
  /** Every key this service writes starts with it (REDIS_KEY_PREFIX). */
  prefix: string;
  /** True while the connection is up: callers skip Redis (and fall back) at once when it is not. */
  ready(): boolean;
  /** Logs that a fallback is in use, at most once per 10 s per reason. */
  degraded(reason: string, error?: unknown): void;
  close(): Promise<void>;
}

/** How long one Redis command may take before its caller falls back. */
const COMMAND_TIMEOUT_MS = 500;

export function connectSharedStore(redis: { url: string; keyPrefix: string }, log: Logger): SharedStore {
  const client = new Redis(redis.url, {
    // Commands from concurrent requests already share the connection without waiting for each other's replies.
    // (ioredis's auto-pipelining is off: with Lua commands defined by defineCommand it can mismatch replies.)
    enableAutoPipelining: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  const lastWarned = new Map<string, number>();
  let wasReady = false;
  client.on('ready', () => {
    if (wasReady) log.info({ component: 'redis' }, 'Redis reachable again: shared counters back in use');
    wasReady = true;
  });
  client.on('error', (error: Error) => degraded('connection', error));
  function degraded(reason: string, error?: unknown) {
    const now = Date.now();
    if (now - (lastWarned.get(reason) ?? 0) < 10_000) return;
    lastWarned.set(reason, now);
    log.warn({ component: 'redis', reason, err: error }, 'Redis unavailable: rate limits per node, API keys read from the database');
  }
  return {
    client,
    prefix: redis.keyPrefix,
    ready: () => client.status === 'ready',
    degraded,
    async close() {
      client.disconnect();
    },
  };
}
