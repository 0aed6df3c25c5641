/**
 * The timer every background job runs on (the webhook dispatcher with its
 * fan-out, reconciliation, event pruning): one pass at a time, the next
 * about `intervalMs` after the last one ends (a random part of it taken off,
 * `jitter`, so the nodes of a deployment started together do not pass in
 * step), sooner when nudged.
 *
 * Quiet in a database outage (decision 24): a pass that fails because the
 * database is out of reach (db/unreachable.ts) makes the job back off,
 * doubling from BACKOFF_BASE_MS up to BACKOFF_MAX_MS with jitter (so the
 * nodes of a deployment do not all knock at once when it returns), and the
 * job says so twice in all: one warning when it starts failing (the
 * failure's code, no stack) and one when a pass succeeds again, with the
 * number of failed passes. Any other failure is ours: logged with its stack
 * each time, and the job keeps its interval.
 */
import type { Logger } from 'pino';
import { unreachableDatabaseReason } from '../db/unreachable';

export const BACKOFF_BASE_MS = 1_000;
export const BACKOFF_MAX_MS = 15_000;
const DEFAULT_JITTER = 0.1;

export interface BackgroundLoopOptions {
  /** What the log lines call the job ("webhook dispatcher"). */
  name: string;
  log: Logger;
  /** The pause between two passes, at most. */
  intervalMs: number;
  /** The share of `intervalMs` a pause may be shorter by, at random (default 0.1: between 90 % and all of it). */
  jitter?: number;
  /** The first pass, this long after `start()` (default at once). */
  firstDelayMs?: number;
  /** A nudged pass waits this long, so what is committed meanwhile joins it (default at once). */
  nudgeDelayMs?: number;
  pass(): Promise<void>;
}

/** The wait before the next try after `failures` failed passes in a row: exponential, capped, between half and all of it. */
export function backoffMs(failures: number, random: () => number = Math.random): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, failures - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** The pause after a pass that succeeded (or failed for a reason of ours): `intervalMs` less a random share of at most `jitter`. */
export function intervalPauseMs(intervalMs: number, jitter: number, random: () => number = Math.random): number {
  return Math.round(intervalMs * (1 - Math.min(1, Math.max(0, jitter)) * random()));
}

export class BackgroundLoop {
  private timer: NodeJS.Timeout | undefined;
  /** When the timer fires (ms since the epoch), to tell whether a nudge would bring the next pass forward. */
  private dueAt = Infinity;
  private started = false;
  private stopped = false;
  private running: Promise<void> | undefined;
  private rerun = false;
  /** Failed passes (and failed background work) since the database went out of reach; 0 while it answers. */
  private failures = 0;
  private failingSince = 0;

  constructor(private readonly options: BackgroundLoopOptions) {}

  start(): void {
    this.started = true;
    this.schedule(this.options.firstDelayMs ?? 0);
  }

  /**
   * Something to do: a pass soon, unless the job is backing off from an
   * outage. `databaseAnswered`: the caller has just written to the database
   * (a request committed), so the outage is over: the pass runs now anyway.
   */
  nudge(options: { databaseAnswered?: boolean } = {}): void {
    if (this.stopped || !this.started) return;
    if (this.running) {
      this.rerun = true;
      return;
    }
    if (this.failures > 0 && !options.databaseAnswered) return;
    this.schedule(this.options.nudgeDelayMs ?? 0);
  }

  /** A pass now (shared with one already running); resolves when it ends. */
  runNow(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return (this.running ??= this.run());
  }

  /**
   * Work a pass started without waiting for it (a delivery attempt) failed:
   * true when the database is out of reach, counted as part of the outage
   * (the one warning), false when it is another failure the caller logs.
   */
  outage(error: unknown): boolean {
    const reason = unreachableDatabaseReason(error);
    if (!reason) return false;
    this.failed(reason);
    return true;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    const at = Date.now() + ms;
    if (this.timer && at >= this.dueAt) return;
    clearTimeout(this.timer);
    this.dueAt = at;
    this.timer = setTimeout(() => {
      this.dueAt = Infinity;
      this.timer = undefined;
      void this.runNow();
    }, ms);
    this.timer.unref();
  }

  private async run(): Promise<void> {
    let next = this.pause();
    try {
      do {
        this.rerun = false;
        await this.options.pass();
        this.recovered();
      } while (this.rerun && !this.stopped);
    } catch (error) {
      if (!this.stopped) next = this.passFailed(error);
    } finally {
      this.running = undefined;
      this.schedule(next);
    }
  }

  /** Logs the failure (once per outage for the database's) and answers the wait before the next pass. */
  private passFailed(error: unknown): number {
    const reason = unreachableDatabaseReason(error);
    if (!reason) {
      this.options.log.error({ err: error, job: this.options.name }, `${this.options.name} pass failed; the next pass retries`);
      return this.pause();
    }
    this.failed(reason);
    return backoffMs(this.failures);
  }

  private pause(): number {
    return intervalPauseMs(this.options.intervalMs, this.options.jitter ?? DEFAULT_JITTER);
  }

  private failed(reason: string): void {
    this.failures += 1;
    if (this.failures > 1) return;
    this.failingSince = Date.now();
    this.options.log.warn({ job: this.options.name, reason }, `${this.options.name} cannot reach the database (${reason}); backing off until it answers`);
  }

  private recovered(): void {
    if (this.failures === 0) return;
    const failedPasses = this.failures;
    this.failures = 0;
    this.options.log.warn(
      { job: this.options.name, failedPasses, outageMs: Date.now() - this.failingSince },
      `${this.options.name} reaches the database again after ${failedPasses} failed passes`,
    );
  }
}
