/**
 * Where a gateway's report about a payment or a subscription stands in time
 * (decision 17), against the newest report already applied to it
 * (`gatewaySeenAt`):
 * - `present`: the gateway's truth now: a read of the gateway (sync,
 *   reconciliation, a cancel's answer), or a webhook no older than every
 *   report applied before it. Among non-final statuses it moves in any
 *   direction.
 * - `unordered`: a report whose place in time is unknown (a create's answer,
 *   a webhook of a protocol without event times): forward moves only.
 * - `stale`: a webhook older than a report already applied: it changes no
 *   status (money received excepted, decision 16).
 */
export type ReportOrder = 'present' | 'unordered' | 'stale';

export interface GatewayReport {
  /** The report's own time: a webhook's event time by its gateway's clock, or when a read of the gateway began; null when unknown. */
  reportedAt: Date | null;
  /** A read of the gateway's state now, which is never stale. */
  present: boolean;
  /**
   * The resolution of the clock that stamped `reportedAt`, in milliseconds
   * (the adapter's `eventClockResolutionMs`: 1000 where a protocol gives
   * whole seconds). Absent: exact to the millisecond.
   */
  resolutionMs?: number;
}

/** A read of the gateway made at `at` (sync, reconciliation, the answer to a cancel). */
export const gatewayRead = (at: Date): GatewayReport => ({ reportedAt: at, present: true });

/** An inbound webhook, stamped with the gateway's event time when its protocol has one, at the resolution of the gateway's clock. */
export function gatewayNotification(occurredAt: string | null, resolutionMs = 1): GatewayReport {
  const at = occurredAt ? new Date(occurredAt) : null;
  return { reportedAt: at && !Number.isNaN(at.getTime()) ? at : null, present: false, resolutionMs };
}

/**
 * Places a report against the newest report applied. Both times are
 * compared at the resolution of the report's clock: a gateway that stamps
 * whole seconds (gateway_a) says 12:00:00 for anything it did during that
 * second, so only an earlier second is certainly older.
 *
 * Equal at that resolution counts as not older (`present`): the gateway's
 * clock cannot order the two, and the notification reports a change the
 * gateway did make, in that second, possibly after a read that began in it.
 * Dropping it would lose that change for good (a gateway notifies once);
 * applying it when it was in fact the older one is undone by the next read
 * of the gateway (a sync, or reconciliation while the resource is
 * unfinished). A webhook with no time at all keeps the forward-only order.
 */
export function orderOfReport(report: GatewayReport, newestApplied: Date | null | undefined): ReportOrder {
  if (report.present) return 'present';
  if (!report.reportedAt) return 'unordered';
  if (!newestApplied) return 'present';
  const tick = Math.max(1, report.resolutionMs ?? 1);
  return Math.floor(report.reportedAt.getTime() / tick) >= Math.floor(newestApplied.getTime() / tick) ? 'present' : 'stale';
}

/** The newest report time applied so far, after applying `report` in `order` (a stale report or one without a time tells nothing new). */
export function newestApplied(report: GatewayReport, order: ReportOrder, seen: Date | null | undefined): Date | null {
  const at = report.reportedAt;
  if (order === 'stale' || !at) return seen ?? null;
  return !seen || at > seen ? at : seen;
}
