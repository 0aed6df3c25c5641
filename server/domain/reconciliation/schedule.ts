/**
 * When an unfinished payment or subscription is read back from its gateway:
 * a first read a while after creation, then after each read the next delay
 * of the schedule, the last one repeating (by default 1 min, 5 min, 30 min,
 * then hourly: RECONCILIATION_SCHEDULE). A Pix is also read just after the
 * moment its gateway said its code expires, when that comes sooner.
 * Something that ended without its gateway's word is read on the late
 * schedule instead (decision 28: `nextLateReadAt`).
 */

/** How long after a Pix's stated expiry it is read: the gateway needs a moment to expire it. */
export const PIX_EXPIRY_GRACE_MS = 15_000;

/** The first read of a resource created at `now`. */
export const firstReadAt = (now: Date, scheduleMs: readonly number[]): Date => new Date(now.getTime() + scheduleMs[0]!);

/** The read after the `readsDone`-th one (1 for the read just made), made at `now`. */
export function nextReadAt(now: Date, readsDone: number, scheduleMs: readonly number[], pixExpiresAt: Date | null = null): Date {
  const delay = scheduleMs[Math.min(readsDone, scheduleMs.length - 1)]!;
  const next = new Date(now.getTime() + delay);
  if (!pixExpiresAt) return next;
  const afterExpiry = new Date(pixExpiresAt.getTime() + PIX_EXPIRY_GRACE_MS);
  return afterExpiry > now && afterExpiry < next ? afterExpiry : next;
}

/**
 * Decision 28: the read after one made at `now` of a payment (or abandoned
 * attempt) that ended without its gateway's word and is watched until
 * `watchUntil` (its end plus `windowMs`). The delay grows with the time since
 * it ended (by default 1 min, 5, 15, 1 h, 3 h, 6 h, the last repeating); one
 * last read at `watchUntil`, then none.
 */
export function nextLateReadAt(now: Date, watchUntil: Date, windowMs: number, lateScheduleMs: readonly number[]): Date | null {
  if (now >= watchUntil) return null;
  const sinceEnd = now.getTime() - (watchUntil.getTime() - windowMs);
  let elapsed = 0;
  let delay = lateScheduleMs[lateScheduleMs.length - 1]!;
  for (const step of lateScheduleMs) {
    elapsed += step;
    if (elapsed > sinceEnd) {
      delay = step;
      break;
    }
  }
  return new Date(Math.min(now.getTime() + delay, watchUntil.getTime()));
}
