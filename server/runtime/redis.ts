/**
 * The Redis connection behind the counters every node shares (REDIS_URL):
 * rate limits, the log-in throttle, the routing breaker and the API-key
 * cache epoch. Commands fail fast instead of queueing, and while Redis is
 * unreachable each user of this client does what was chosen for it (docs/development.md,
 * Performance): rate limits and the breaker count per node (fail open), the
 * API-key cache is off, the log-in throttle refuses (fail safe: 503). The
 * monthly quota does not depend on it (domain/quota.ts).
 *
 * An outage is told once: one warning when the first failure is seen, one
 * when Redis answers again (the connection is back, or a ping succeeds
 * after a command failed on a connection that stayed up), however many
 * requests fell back in between.
 */
import { Redis } from 'ioredis';
import type { Logger } from './logger';

export interface SharedStore {
  client: Redis;
  /** Every key this service writes starts with it (REDIS_KEY_PREFIX). */
  prefix: string;
  /** True while the connection is up: callers skip Redis (and fall back) at once when it is not. */
  ready(): boolean;
  /** A caller fell back: Redis failed (`error`) or is not connected. Starts an outage (one warning) unless one is on. */
  degraded(reason: string, error?: unknown): void;
  /** Tells `listener` each time Redis answers again after an outage. */
  onRecovered(listener: () => void): void;
  close(): Promise<void>;
}

/** How long one Redis command may take before its caller falls back. */
const COMMAND_TIMEOUT_MS = 500;
/** During an outage on a connection that stayed up (commands timing out), how often Redis is pinged to see it back. */
const RECOVERY_PING_MS = 1_000;

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
  const recovered: (() => void)[] = [];
  /** Set while an outage is on: when it began, and the ping that looks for its end on a connection that stayed up. */
  let outage: { since: number; ping: NodeJS.Timeout } | null = null;
  let closed = false;

  let everReady = false;
  function degraded(reason: string, error?: unknown) {
    // Before the first connection only the connection's own failure counts: callers that ran while it was being made are not an outage.
    if (outage || closed || (!everReady && reason !== 'connection')) return;
    const ping = setInterval(() => {
      if (client.status === 'ready') void client.ping().then(back, () => {});
    }, RECOVERY_PING_MS);
    ping.unref();
    outage = { since: Date.now(), ping };
    log.warn(
      { component: 'redis', reason, err: error },
      'Redis unreachable: rate limits and the routing breaker counted per node, API keys read from the database, log-ins refused (503) until it answers',
    );
  }
  function back() {
    if (!outage || closed) return;
    clearInterval(outage.ping);
    const seconds = Math.round((Date.now() - outage.since) / 1000);
    outage = null;
    log.warn({ component: 'redis', outageSeconds: seconds }, 'Redis reachable again: shared counters and log-ins back');
    for (const listener of recovered) listener();
  }
  client.on('ready', () => {
    everReady = true;
    back();
  });
  client.on('error', (error: Error) => degraded('connection', error));
  // A connection lost without an error event (Redis shut down cleanly) is an outage too.
  client.on('end', () => degraded('connection'));
  client.on('close', () => degraded('connection'));
  return {
    client,
    prefix: redis.keyPrefix,
    ready: () => client.status === 'ready',
    degraded,
    onRecovered: (listener) => void recovered.push(listener),
    async close() {
      closed = true;
      if (outage) clearInterval(outage.ping);
      client.disconnect();
    },
  };
}
