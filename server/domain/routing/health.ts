/**
 * Each gateway's health per environment, and the circuit breaker routing
 * reads (decision 21). Outcomes of creates (success, failure, timeout) and
 * their latency are kept in a HealthStore chosen at start-up
 * (runtime/gateway-health-stores.ts): this node's memory, or Redis when
 * REDIS_URL is set so every node sees the same breaker.
 *
 * The breaker: closed until ROUTING_BREAKER_CONSECUTIVE unavailable creates
 * in a row, or a failure rate of ROUTING_BREAKER_FAILURE_RATE over at least
 * ROUTING_BREAKER_MIN_CALLS creates of the last ROUTING_BREAKER_WINDOW_MS;
 * then open (skipped) for ROUTING_BREAKER_COOLDOWN_MS; then half-open: one
 * create (on any node) is let through as the probe, the rest still skip;
 * any success closes it, a failed probe opens it for another cool-down.
 */
import type { GatewayName } from '../../contract/enums';
import type { Config } from '../../config';
import { breakerTransitions } from '../../observability/routing-metrics';

export type BreakerState = 'closed' | 'open' | 'half_open';
/** `failure`: connection refused or reset, or a 5xx; `timeout`: no answer in time. A refusal is a success: the gateway answered. */
export type HealthOutcome = 'success' | 'failure' | 'timeout';

export interface HealthSample {
  at: number;
  outcome: HealthOutcome;
  ms: number;
}

export interface BreakerRecord {
  /** Set while open or half-open: open before it, half-open after. */
  openUntil: number | null;
  lastFailureAt: number | null;
  consecutive: number;
}

/** Where samples and breaker state live: this node's memory, or Redis. */
export interface HealthStore {
  record(key: string, sample: HealthSample, windowMs: number): Promise<{ consecutive: number; samples: HealthSample[] }>;
  samples(key: string, windowMs: number): Promise<HealthSample[]>;
  breaker(key: string): Promise<BreakerRecord>;
  open(key: string, until: number, keepMs: number): Promise<void>;
  close(key: string): Promise<void>;
  /** One probe at a time per gateway: true for the taker. */
  takeProbe(key: string, ttlMs: number): Promise<boolean>;
}

/** What the breaker lets a create do at a gateway now. */
export type Admission = { call: true; probe: boolean } | { call: false; state: 'open' | 'half_open'; reason: string };

export interface GatewayHealthView {
  gateway: GatewayName;
  state: BreakerState;
  successes: number;
  failures: number;
  timeouts: number;
  p50Ms: number | null;
  p95Ms: number | null;
  openUntil: string | null;
  lastFailureAt: string | null;
}

export class GatewayHealth {
  constructor(
    private readonly settings: Config['routingBreaker'],
    /** How long a probe may take before another may go: the gateway's whole timeout and a margin. */
    private readonly probeTtlMs: number,
    private readonly store: HealthStore,
  ) {}

  /** The breaker's state now, read only (the dry run, the health page). */
  async state(environmentId: string, gateway: GatewayName): Promise<{ state: BreakerState; openUntil: number | null; lastFailureAt: number | null }> {
    const breaker = await this.store.breaker(keyOf(environmentId, gateway));
    return { state: stateOf(breaker, Date.now()), openUntil: breaker.openUntil, lastFailureAt: breaker.lastFailureAt };
  }

  /** Whether a create may call this gateway now; half-open lets exactly one caller through (the probe). */
  async admit(environmentId: string, gateway: GatewayName): Promise<Admission> {
    const key = keyOf(environmentId, gateway);
    const breaker = await this.store.breaker(key);
    const now = Date.now();
    const state = stateOf(breaker, now);
    if (state === 'closed') return { call: true, probe: false };
    if (state === 'open') return { call: false, state, reason: `breaker open until ${new Date(breaker.openUntil!).toISOString()}` };
    if (await this.store.takeProbe(key, this.probeTtlMs)) {
      breakerTransitions.inc({ gateway, state: 'half_open' });
      return { call: true, probe: true };
    }
    return { call: false, state, reason: 'breaker half-open: another request is probing the gateway' };
  }

  /** Records a create's outcome at a gateway; opens or closes the breaker when that crosses its thresholds. */
  async record(environmentId: string, gateway: GatewayName, outcome: HealthOutcome, ms: number): Promise<void> {
    const key = keyOf(environmentId, gateway);
    const now = Date.now();
    const before = await this.store.breaker(key);
    const { consecutive, samples } = await this.store.record(key, { at: now, outcome, ms }, this.settings.windowMs);
    const state = stateOf(before, now);
    if (outcome === 'success') {
      if (state !== 'closed') {
        await this.store.close(key);
        breakerTransitions.inc({ gateway, state: 'closed' });
      }
      return;
    }
    // Open: a straggler's failure changes nothing. Half-open: the probe failed, another cool-down.
    if (state === 'open') return;
    const failing = samples.filter((s) => s.outcome !== 'success').length;
    const tripped =
      state === 'half_open' ||
      consecutive >= this.settings.consecutive ||
      (samples.length >= this.settings.minCalls && failing / samples.length >= this.settings.failureRate);
    if (!tripped) return;
    await this.store.open(key, now + this.settings.cooldownMs, this.settings.cooldownMs + 3_600_000);
    breakerTransitions.inc({ gateway, state: 'open' });
  }

  /** Each gateway's recent outcomes, latency and breaker, for operators. */
  async view(environmentId: string, gateways: readonly GatewayName[]): Promise<GatewayHealthView[]> {
    return Promise.all(
      gateways.map(async (gateway) => {
        const key = keyOf(environmentId, gateway);
        const [samples, breaker] = await Promise.all([this.store.samples(key, this.settings.windowMs), this.store.breaker(key)]);
        const latencies = samples.map((s) => s.ms).sort((a, b) => a - b);
        return {
          gateway,
          state: stateOf(breaker, Date.now()),
          successes: samples.filter((s) => s.outcome === 'success').length,
          failures: samples.filter((s) => s.outcome === 'failure').length,
          timeouts: samples.filter((s) => s.outcome === 'timeout').length,
          p50Ms: percentile(latencies, 0.5),
          p95Ms: percentile(latencies, 0.95),
          openUntil: breaker.openUntil === null ? null : new Date(breaker.openUntil).toISOString(),
          lastFailureAt: breaker.lastFailureAt === null ? null : new Date(breaker.lastFailureAt).toISOString(),
        };
      }),
    );
  }
}

const keyOf = (environmentId: string, gateway: GatewayName) => `${environmentId}:${gateway}`;

function stateOf(breaker: BreakerRecord, now: number): BreakerState {
  if (breaker.openUntil === null) return 'closed';
  return now < breaker.openUntil ? 'open' : 'half_open';
}

function percentile(sorted: number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!);
}
