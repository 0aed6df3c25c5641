/**
 * The background jobs' timer (runtime/background-loop.ts) in a database
 * outage: it backs off with jitter instead of trying at its interval, says
 * so once when it starts failing (the failure's code, no stack) and once when
 * it recovers (with the failed passes counted), and keeps logging any other
 * failure with its stack, as a bug. Fake timers: the waits are the loop's own.
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BACKOFF_MAX_MS, BackgroundLoop, backoffMs, intervalPauseMs } from '../../server/runtime/background-loop';
import { createLogger } from '../../server/runtime/logger';

/** What pg throws when the connection drops (no code), and a refused connection as Node reports it. */
const dropped = () => new Error('Connection terminated unexpectedly');
const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED', syscall: 'connect' });

function capturedLog() {
  const lines: Record<string, any>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { log: createLogger('info', sink), lines };
}

afterEach(() => vi.useRealTimers());

describe('a background job while the database is out of reach', () => {
  it('backs off with jitter, logs one warning when it starts failing and one when it recovers, with the count of failed passes', async () => {
    vi.useFakeTimers();
    const { log, lines } = capturedLog();
    let failing = true;
    const startedAt: number[] = [];
    const loop = new BackgroundLoop({
      name: 'test job',
      log,
      intervalMs: 100,
      pass: async () => {
        startedAt.push(Date.now());
        if (failing) throw startedAt.length % 2 ? dropped() : refused();
      },
    });
    loop.start();
    await vi.advanceTimersByTimeAsync(30_000);
    // At its interval it would have tried 300 times; backing off (1, 2, 4, 8, 15, 15 s, each between half and all) about 6.
    expect(startedAt.length).toBeGreaterThanOrEqual(4);
    expect(startedAt.length).toBeLessThanOrEqual(12);
    const waits = startedAt.slice(1).map((at, i) => at - startedAt[i]!);
    expect(waits.every((wait) => wait >= 500 && wait <= BACKOFF_MAX_MS)).toBe(true);
    // A nudge does not cut a back-off short; a caller that just wrote to the database does.
    const tried = startedAt.length;
    loop.nudge();
    await vi.advanceTimersByTimeAsync(10);
    expect(startedAt.length).toBe(tried);

    failing = false;
    loop.nudge({ databaseAnswered: true });
    await vi.advanceTimersByTimeAsync(10);
    expect(startedAt.length).toBe(tried + 1);
    await vi.advanceTimersByTimeAsync(1_000);
    await loop.stop();

    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      [40, 'test job cannot reach the database (connection_terminated); backing off until it answers'],
      [40, `test job reaches the database again after ${tried} failed passes`],
    ]);
    expect(lines[0]).toMatchObject({ job: 'test job', reason: 'connection_terminated' });
    expect(lines[0]!.err).toBeUndefined();
    expect(lines[1]).toMatchObject({ failedPasses: tried });
    // Back at its interval once recovered.
    expect(startedAt.length).toBeGreaterThan(tried + 5);
  });

  it('logs any other failure with its stack at every pass, and keeps its interval', async () => {
    vi.useFakeTimers();
    const { log, lines } = capturedLog();
    let passes = 0;
    const loop = new BackgroundLoop({
      name: 'test job',
      log,
      intervalMs: 100,
      jitter: 0,
      pass: async () => {
        passes++;
        throw new Error('a bug of ours');
      },
    });
    loop.start();
    await vi.advanceTimersByTimeAsync(1_050);
    await loop.stop();
    expect(passes).toBe(11);
    expect(lines).toHaveLength(11);
    expect(lines.every((line) => line.level === 50 && String(line.err?.stack).includes('a bug of ours'))).toBe(true);
  });

  it('counts a failure of work the pass left running (a delivery attempt) into the same outage', async () => {
    const { log, lines } = capturedLog();
    const loop = new BackgroundLoop({ name: 'test job', log, intervalMs: 60_000, pass: async () => {} });
    expect(loop.outage(dropped())).toBe(true);
    expect(loop.outage(refused())).toBe(true);
    expect(loop.outage(new Error('the receiver answered nonsense'))).toBe(false);
    await loop.runNow();
    await loop.stop();
    expect(lines.map((line) => line.msg)).toEqual([
      'test job cannot reach the database (connection_terminated); backing off until it answers',
      'test job reaches the database again after 2 failed passes',
    ]);
  });

  it('waits between half and all of an exponential, capped step', () => {
    expect([1, 2, 3, 4, 5, 9].map((failures) => backoffMs(failures, () => 1))).toEqual([1_000, 2_000, 4_000, 8_000, 15_000, 15_000]);
    expect([1, 2, 9].map((failures) => backoffMs(failures, () => 0))).toEqual([500, 1_000, 7_500]);
  });
});

describe('a background job at its interval', () => {
  it('pauses between (1 - jitter) and all of its interval, so nodes started together drift apart', () => {
    expect([0, 0.5, 1].map((draw) => intervalPauseMs(1_000, 0.1, () => draw))).toEqual([1_000, 950, 900]);
    expect(intervalPauseMs(1_000, 0, () => 1)).toBe(1_000);
    expect(intervalPauseMs(1_000, 5, () => 1)).toBe(0);
  });

  it('runs its passes at jittered pauses: more passes than the whole interval allows, never more than the shortest pause allows', async () => {
    vi.useFakeTimers();
    const { log } = capturedLog();
    const passesIn = async (jitter: number) => {
      let passes = 0;
      const loop = new BackgroundLoop({ name: 'test job', log, intervalMs: 100, jitter, pass: async () => { passes++; } });
      loop.start();
      await vi.advanceTimersByTimeAsync(2_050);
      await loop.stop();
      return passes;
    };
    expect(await passesIn(0)).toBe(21);
    const jittered = await passesIn(0.5);
    expect(jittered).toBeGreaterThan(21);
    expect(jittered).toBeLessThanOrEqual(42);
  });
});
