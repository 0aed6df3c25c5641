/**
 * Where each gateway's health samples and circuit breaker live (the logic is
 * domain/routing/health.ts). Without REDIS_URL, in this node's memory; with
 * it, in Redis, shared by every node so they all see the same breaker. When
 * Redis fails a node falls back to its own memory (logged, like the rate
 * limits), so routing goes on with what this node saw.
 */
import { randomBytes } from 'node:crypto';
import type { BreakerRecord, HealthOutcome, HealthSample, HealthStore } from '../domain/routing/health';
import type { SharedStore } from './redis';

class MemoryHealthStore implements HealthStore {
  private readonly entries = new Map<string, { samples: HealthSample[]; breaker: BreakerRecord; probeUntil: number }>();

  private entry(key: string) {
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { samples: [], breaker: { openUntil: null, lastFailureAt: null, consecutive: 0 }, probeUntil: 0 };
      this.entries.set(key, entry);
    }
    return entry;
  }

  async record(key: string, sample: HealthSample, windowMs: number) {
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

  record(key: string, sample: HealthSample, windowMs: number) {
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

function parseSamples(members: string[], since: number): HealthSample[] {
  const samples: HealthSample[] = [];
  for (const member of members) {
    const [at, outcome, ms] = member.split(':');
    const sample: HealthSample = { at: Number(at), outcome: outcome as HealthOutcome, ms: Number(ms) };
    if (sample.at >= since) samples.push(sample);
  }
  return samples.reverse();
}

/** Samples and breakers in this node's memory: the embedded single-node default. */
export const createMemoryHealthStore = (): HealthStore => new MemoryHealthStore();

/** Samples and breakers in Redis, shared by every node; this node's memory while Redis fails (logged). */
export const createRedisHealthStore = (store: SharedStore): HealthStore => new RedisHealthStore(store);
