/**
 * Each gateway's health per environment, and the circuit breaker routing
 * reads (decision 21). Outcomes of creates (success, failure, timeout) and
 * their latency are kept per node, and in Redis when REDIS_URL is set so every
 * node sees the same breaker; when Redis fails the node falls back to its own
 * memory (logged, like the rate limits).
 *
 * The breaker: closed until ROUTING_BREAKER_CONSECUTIVE unavailable creates
 * in a row, or a failure rate of ROUTING_BREAKER_FAILURE_RATE over at least
 * ROUTING_BREAKER_MIN_CALLS creates of the last ROUTING_BREAKER_WINDOW_MS;
 * then open (skipped) for ROUTING_BREAKER_COOLDOWN_MS; then half-open: one
 * create (on any node) is let through as the probe, the rest still skip;
 * any success closes it, a failed probe opens it for another cool-down.
 */
import { randomBytes } from 'node:crypto';
import type { GatewayName } from '../contract/enums';
import type { Config } from '../config';
import type { SharedStore } from '../runtime/redis';
import { breakerTransitions } from '../observability/routing-metrics';

export type BreakerState = 'closed' | 'open' | 'half_open';
/** `failure`: connection refused or reset, or a 5xx; `timeout`: no answer in time. A refusal is a success: the gateway answered. */
export type HealthOutcome = 'success' | 'failure' | 'timeout';

interface Sample {
  at: number;
  outcome: HealthOutcome;
  ms: number;
}

interface BreakerRecord {
  /** Set while open or half-open: open before it, half-open after. */
  openUntil: number | null;
  lastFailureAt: number | null;
  consecutive: number;
}

/** Where samples and breaker state live: this node's memory, or Redis. */
interface HealthStore {
  record(key: string, sample: Sample, windowMs: number): Promise<{ consecutive: number; samples: Sample[] }>;
  samples(key: string, windowMs: number): Promise<Sample[]>;
  breaker(key: string): Promise<BreakerRecord>;
  open(key: string, until: number, keepMs: number): Promise<void>;
  close(key: string): Promise<void>;
  /** One probe at a time per gateway: true for the taker. */
  takeProbe(key: string, ttlMs: number): Promise<boolean>;
}

class MemoryHealthStore implements HealthStore {
  private readonly entries = new Map<string, { samples: Sample[]; breaker: BreakerRecord; probeUntil: number }>();

  private entry(key: string) {
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { samples: [], breaker: { openUntil: null, lastFailureAt: null, consecutive: 0 }, probeUntil: 0 };
      this.entries.set(key, entry);
    }
    return entry;
  }

  async record(key: string, sample: Sample, windowMs: number) {
    const entry = this.entry(key);
    entry.samples = entry.samples.filter((s) => s.at >= sample.at - windowMs);
    entry.samples.push(sample);
    if (entry.samples.length > 500) entry.samples.splice(0, entry.samples.length - 500);
    if (sample.outcome === 'success') entry.breaker.consecutive = 0;
    else {
      entry.breaker.consecutive += 1;
      entry.breaker.lastFailureAt = sample.at;
    }
    return { consecutive: entry.breaker.consecutive, samples: [...entry.samples] };
  }

  async samples(key: string, windowMs: number) {
    const since = Date.now() - windowMs;
    return (this.entries.get(key)?.samples ?? []).filter((s) => s.at >= since);
  }

  async breaker(key: string) {
    return { ...this.entry(key).breaker };
  }

  async open(key: string, until: number) {
    const entry = this.entry(key);
    entry.breaker.openUntil = until;
    entry.probeUntil = 0;
  }

  async close(key: string) {
    const entry = this.entry(key);
    entry.breaker.openUntil = null;
    entry.breaker.consecutive = 0;
    entry.probeUntil = 0;
  }

  async takeProbe(key: string, ttlMs: number) {
    const entry = this.entry(key);
    const now = Date.now();
    if (entry.probeUntil > now) return false;
    entry.probeUntil = now + ttlMs;
    return true;
  }
}

/** The same in Redis, shared by every node; each call falls back to this node's memory while Redis fails. */
class RedisHealthStore implements HealthStore {
  private readonly local = new MemoryHealthStore();

  constructor(private readonly store: SharedStore) {}

  private k(key: string, part: string) {
    return `${this.store.prefix}gwhealth:${key}:${part}`;
  }

  private async shared<T>(work: () => Promise<T>, fallback: () => Promise<T>): Promise<T> {
    if (!this.store.ready()) {
      this.store.degraded('gateway-health');
      return fallback();
    }
    try {
      return await work();
    } catch (error) {
      this.store.degraded('gateway-health', error);
      return fallback();
    }
  }

  record(key: string, sample: Sample, windowMs: number) {
    return this.shared(
      async () => {
        const member = `${sample.at}:${sample.outcome}:${Math.round(sample.ms)}:${randomBytes(3).toString('hex')}`;
        const keep = windowMs * 2 + 60_000;
        const multi = this.store.client.multi().lpush(this.k(key, 's'), member).ltrim(this.k(key, 's'), 0, 499).pexpire(this.k(key, 's'), keep);
        if (sample.outcome === 'success') multi.set(this.k(key, 'c'), 0, 'PX', keep);
        else multi.incr(this.k(key, 'c')).pexpire(this.k(key, 'c'), keep).set(this.k(key, 'f'), sample.at, 'PX', 86_400_000);
        multi.lrange(this.k(key, 's'), 0, -1);
        const replies = (await multi.exec()) ?? [];
        for (const [error] of replies) if (error) throw error;
        const consecutive = sample.outcome === 'success' ? 0 : Number(replies[3]?.[1] ?? 0);
        const list = (replies[replies.length - 1]?.[1] as string[] | undefined) ?? [];
        return { consecutive, samples: parseSamples(list, sample.at - windowMs) };
      },
      () => this.local.record(key, sample, windowMs),
    );
  }

  samples(key: string, windowMs: number) {
    return this.shared(
      async () => parseSamples(await this.store.client.lrange(this.k(key, 's'), 0, -1), Date.now() - windowMs),
      () => this.local.samples(key, windowMs),
    );
  }

  breaker(key: string) {
    return this.shared(
      async () => {
        const [openUntil, lastFailureAt, consecutive] = await this.store.client.mget(this.k(key, 'o'), this.k(key, 'f'), this.k(key, 'c'));
        return { openUntil: openUntil ? Number(openUntil) : null, lastFailureAt: lastFailureAt ? Number(lastFailureAt) : null, consecutive: Number(consecutive ?? 0) };
      },
      () => this.local.breaker(key),
    );
  }

  open(key: string, until: number, keepMs: number) {
    return this.shared(
      async () => {
        await this.store.client.multi().set(this.k(key, 'o'), until, 'PX', keepMs).del(this.k(key, 'p')).exec();
      },
      () => this.local.open(key, until),
    );
  }

  close(key: string) {
    return this.shared(
      async () => {
        await this.store.client.multi().del(this.k(key, 'o'), this.k(key, 'p')).set(this.k(key, 'c'), 0, 'PX', 3_600_000).exec();
      },
      () => this.local.close(key),
    );
  }

  takeProbe(key: string, ttlMs: number) {
    return this.shared(
      async () => (await this.store.client.set(this.k(key, 'p'), 1, 'PX', ttlMs, 'NX')) === 'OK',
      () => this.local.takeProbe(key, ttlMs),
    );
  }
}

function parseSamples(members: string[], since: number): Sample[] {
  const samples: Sample[] = [];
  for (const member of members) {
    const [at, outcome, ms] = member.split(':');
    const sample = { at: Number(at), outcome: outcome as HealthOutcome, ms: Number(ms) };
    if (sample.at >= since) samples.push(sample);
  }
  return samples.reverse();
}

/** The defaults of ROUTING_BREAKER_* (config.ts), for a directory built without the service's configuration. */
export const DEFAULT_BREAKER: Config['routingBreaker'] = { consecutive: 5, failureRate: 0.5, minCalls: 10, windowMs: 30_000, cooldownMs: 30_000 };

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
  private readonly store: HealthStore;

  constructor(
    private readonly settings: Config['routingBreaker'],
    /** How long a probe may take before another may go: the gateway's whole timeout and a margin. */
    private readonly probeTtlMs: number,
    shared: SharedStore | null,
  ) {
    this.store = shared ? new RedisHealthStore(shared) : new MemoryHealthStore();
  }

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
