/**
 * When an unfinished payment or subscription is read back from its gateway:
 * a first read a while after creation, then after each read the next delay
 * of the schedule, the last one repeating (by default 1 min, 5 min, 30 min,
 * then hourly: RECONCILIATION_SCHEDULE). A Pix is also read just after the
 * moment its gateway said its code expires, when that comes sooner.
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
