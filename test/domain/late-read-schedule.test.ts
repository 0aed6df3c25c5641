/** The late schedule (decision 28): reads of what ended without its gateway's word back off and stop a day after it ended. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { nextLateReadAt } from '../../server/domain/reconciliation/schedule';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('late reads', () => {
  it('by default: 1 min, 5, 15, 1 h, 3 h, then every 6 h, a last read 24 h after the end, then none', () => {
    const { lateScheduleMs, lateWindowMs } = loadConfig({ NODE_ENV: 'test' }).reconciliation;
    const ended = new Date('2026-11-27T00:00:00Z');
    const until = new Date(ended.getTime() + lateWindowMs);
    const reads: number[] = [];
    for (let at: Date | null = new Date(ended.getTime() + lateScheduleMs[0]!); at; at = nextLateReadAt(at, until, lateWindowMs, lateScheduleMs)) {
      reads.push(at.getTime() - ended.getTime());
    }
    expect(reads).toEqual([1 * MINUTE, 6 * MINUTE, 21 * MINUTE, HOUR + 21 * MINUTE, 4 * HOUR + 21 * MINUTE, 10 * HOUR + 21 * MINUTE, 16 * HOUR + 21 * MINUTE, 22 * HOUR + 21 * MINUTE, 24 * HOUR]);
  });

  it('a read made late (the reconciler was stopped) after the window is the last one', () => {
    const until = new Date('2026-11-28T00:00:00Z');
    expect(nextLateReadAt(new Date(until.getTime() + HOUR), until, 24 * HOUR, [MINUTE])).toBeNull();
  });

  it('the schedule and the window are configurable, and refused when they are not durations', () => {
    expect(loadConfig({ NODE_ENV: 'test', RECONCILIATION_LATE_SCHEDULE: '1s,2s', RECONCILIATION_LATE_WINDOW: '10m' }).reconciliation).toMatchObject({ lateScheduleMs: [1_000, 2_000], lateWindowMs: 10 * MINUTE });
    expect(() => loadConfig({ NODE_ENV: 'test', RECONCILIATION_LATE_SCHEDULE: 'soon' })).toThrow(/RECONCILIATION_LATE_SCHEDULE/);
    expect(() => loadConfig({ NODE_ENV: 'test', RECONCILIATION_LATE_WINDOW: '24' })).toThrow(/RECONCILIATION_LATE_WINDOW/);
  });
});
