/**
 * Whether an environment is in an outage now, for Home's banner: a gateway
 * whose breaker is not closed (health.ts: shared through Redis when
 * REDIS_URL is set, this node's memory otherwise, so it starts closed after
 * a restart), or a payment method whose creates at one gateway mostly fail.
 *
 * The second is read from the payments' routing traces (trace.ts: every
 * call a create made, with its outcome and time), which are rows in the
 * database and so outlast a restart and agree on every node: the newest
 * payments created in the last OUTAGE_WINDOW_MS, at most OUTAGE_SAMPLE of
 * them through the (environment_id, created_at, id) index. A gateway that
 * was not called (breaker open: `skipped`) is not an attempt; a refusal
 * (4xx) is an answer, so it counts as the gateway up, like the breaker.
 */
import type { GatewayName, PaymentMethod } from '../../contract/enums';
import type { EntityManager } from '../../db/orm';
import type { Services } from '../../services';
import type { AttemptOutcome } from './trace';
import { routingHealth } from './views';

export const OUTAGE_WINDOW_MS = 15 * 60_000;
/** A method is failing at a gateway below this share of answered calls... */
export const OUTAGE_SUCCESS_THRESHOLD = 0.8;
/** ...over at least this many calls (fewer say nothing either way). */
export const OUTAGE_MIN_ATTEMPTS = 10;
/** The newest payments of the window read at most: bounds the read on a busy environment. */
export const OUTAGE_SAMPLE = 2_000;

const FAILED: ReadonlySet<string> = new Set<AttemptOutcome>(['unavailable', 'timeout']);

export interface AttemptRow {
  method: PaymentMethod;
  gateway: GatewayName;
  outcome: AttemptOutcome;
  started_at: string;
}

/** Each call made (not skipped) by the newest payments created since `from`, oldest first. */
function attemptsSince(em: EntityManager, environmentId: string, from: Date): Promise<AttemptRow[]> {
  return em.execute<AttemptRow[]>(
    `select recent.method, attempt->>'gateway' as gateway, attempt->>'outcome' as outcome, attempt->>'startedAt' as started_at
     from (select method, routing_trace from payments
           where environment_id = ? and created_at >= ?
           order by created_at desc, id desc limit ?) as recent
     cross join lateral jsonb_array_elements(coalesce(recent.routing_trace->'attempts', '[]'::jsonb)) as attempt
     where attempt->>'outcome' <> 'skipped'
     order by attempt->>'startedAt'`,
    [environmentId, from.toISOString(), OUTAGE_SAMPLE],
  );
}

export interface FailingMethod {
  method: PaymentMethod;
  gateway: GatewayName;
  attempts: number;
  failed: number;
  /** Share of the window's calls the gateway answered, 0 to 1. */
  successRate: number;
  /** The first failed call of the window. */
  since: string;
}

/**
 * The methods failing at a gateway: below the threshold over the window, and
 * the latest call failed too, so the banner goes as soon as the gateway
 * answers again rather than when the failures age out of the window.
 */
export function failingMethods(rows: readonly AttemptRow[]): FailingMethod[] {
  const groups = new Map<string, { method: PaymentMethod; gateway: GatewayName; attempts: number; failed: number; since: string | null; lastFailed: boolean }>();
  for (const row of rows) {
    const key = `${row.method}:${row.gateway}`;
    const group = groups.get(key) ?? { method: row.method, gateway: row.gateway, attempts: 0, failed: 0, since: null, lastFailed: false };
    const failed = FAILED.has(row.outcome);
    group.attempts += 1;
    group.failed += failed ? 1 : 0;
    if (failed) group.since ??= row.started_at;
    group.lastFailed = failed;
    groups.set(key, group);
  }
  return [...groups.values()]
    .map((group) => ({ ...group, successRate: (group.attempts - group.failed) / group.attempts }))
    .filter((group) => group.lastFailed && group.attempts >= OUTAGE_MIN_ATTEMPTS && group.successRate < OUTAGE_SUCCESS_THRESHOLD)
    .map(({ method, gateway, attempts, failed, successRate, since }) => ({ method, gateway, attempts, failed, successRate, since: since! }));
}

export async function outageNow(em: EntityManager, services: Services, environmentId: string, now: Date) {
  const [health, rows] = await Promise.all([routingHealth(em, services, environmentId), attemptsSince(em, environmentId, new Date(now.getTime() - OUTAGE_WINDOW_MS))]);
  const cooldownMs = services.config.routingBreaker.cooldownMs;
  return {
    windowMinutes: OUTAGE_WINDOW_MS / 60_000,
    threshold: OUTAGE_SUCCESS_THRESHOLD,
    minAttempts: OUTAGE_MIN_ATTEMPTS,
    /** Gateways whose breaker is open (skipped by routing) or half-open (one probe at a time); `since`: when it last opened. */
    breakers: health
      .filter((gateway) => gateway.state !== 'closed')
      .map((gateway) => ({
        gateway: gateway.gateway,
        state: gateway.state as 'open' | 'half_open',
        since: gateway.openUntil === null ? null : new Date(Date.parse(gateway.openUntil) - cooldownMs).toISOString(),
      })),
    methods: failingMethods(rows),
  };
}
