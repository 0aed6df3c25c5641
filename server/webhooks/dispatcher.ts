/**
 * The outbound webhook dispatcher of one service instance. It runs at start,
 * when told that events were committed (`notify`, the service's `outbox`),
 * and on a timer, so events committed by another instance, or before a
 * crash, are delivered as soon as some instance is running. Each pass fans
 * out new events, then claims and attempts deliveries; the claims in the
 * database, not anything in memory, decide which instance attempts what.
 * Attempts run in the background: nothing here ever waits inside an API request.
 */
import { randomToken } from '../contract/ids';
import { tracing, type TraceLink } from '../observability/trace-seam';
import { BackgroundLoop } from '../runtime/background-loop';
import type { Services } from '../services';
import { attemptDelivery } from './attempt';
import { claimNextDeliveries } from './claims';
import { fanOutAll } from './fan-out';

/** Deliveries in flight at once per instance (to different endpoints: one endpoint is served in order). */
const MAX_IN_FLIGHT = 16;
/**
 * A pass starts this long after the first nudge, so the events committed
 * meanwhile are fanned out in one transaction instead of one pass each: a
 * merchant creating payments one after another gets its webhooks 5 ms later,
 * and the service does about a tenth more creates a second.
 */
const NUDGE_DELAY_MS = 5;
/** Tracing only: how many events' links are remembered until their deliveries are attempted (the oldest go first). */
const REMEMBERED_EVENT_LINKS = 10_000;
/** Tracing only: at most this many requests are linked from one pass's deliveries. */
const MAX_LINKS_PER_PASS = 32;

export class WebhookDispatcher {
  private stopped = false;
  /** The timer, one pass at a time, and the back-off while the database is out of reach (runtime/background-loop.ts). */
  private readonly loop: BackgroundLoop;
  private readonly inFlight = new Set<Promise<void>>();
  /**
   * Tracing: a delivery's trace links to the request that committed its event. The events' rows do not say which
   * request that was, so the requests that nudged the dispatcher since its last pass are kept (`nudgedBy`) and given to
   * the events that pass fans out (`linksOf`): usually exactly the one request; several when their commits fall in
   * one pass; none for events another node committed. Both stay empty with tracing off.
   */
  private nudgedBy: TraceLink[] = [];
  private readonly linksOf = new Map<string, readonly TraceLink[]>();

  constructor(private readonly services: Services) {
    this.loop = new BackgroundLoop({
      name: 'webhook dispatcher',
      log: services.log,
      intervalMs: services.config.webhooks.pollIntervalMs,
      nudgeDelayMs: NUDGE_DELAY_MS,
      pass: () => this.pass(),
    });
  }

  start(): void {
    this.loop.start();
  }

  /** New events were committed (so the database answers): run a pass soon. Never throws, never waits. */
  notify(): void {
    const link = tracing.currentLink();
    if (link && this.nudgedBy.length < MAX_LINKS_PER_PASS) this.nudgedBy.push(link);
    this.loop.nudge({ databaseAnswered: true });
  }

  /** Stops claiming and waits for the attempts in flight (each ends within the delivery timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
    await Promise.allSettled([...this.inFlight]);
  }

  private async pass(): Promise<void> {
    if (this.stopped) return;
    const links = this.nudgedBy.splice(0);
    await fanOutAll(() => this.services.db.fork(), links.length > 0 ? (eventIds) => this.remember(eventIds, links) : undefined);
    await this.claimAndStart();
  }

  private async claimAndStart(): Promise<void> {
    const room = MAX_IN_FLIGHT - this.inFlight.size;
    if (room <= 0 || this.stopped) return;
    const { leaseMs } = this.services.config.webhooks;
    const claims = await claimNextDeliveries(this.services.db.fork(), room, `dsp_${randomToken(24)}`, leaseMs);
    for (const claim of claims) {
      const attributes = { 'webhook.delivery_id': claim.id, 'webhook.event_id': claim.eventId, 'webhook.event_type': claim.eventType, 'webhook.attempt': claim.attemptNumber };
      const attempt: Promise<void> = tracing
        .inLinkedRoot('webhook delivery', attributes, this.linksOf.get(claim.eventId) ?? [], () => attemptDelivery(this.services, claim, claim.scheduledRetry ? 'retry' : 'dispatch'))
        .then(() => undefined)
        .catch((error: unknown) => {
          // The lease stays; once it expires the attempt is made again. The database out of reach is the outage's one warning.
          if (!this.loop.outage(error)) this.services.log.error({ err: error, deliveryId: claim.id }, 'webhook delivery attempt could not be recorded');
        })
        .finally(() => {
          this.inFlight.delete(attempt);
          // The endpoint's next delivery may go now.
          this.loop.nudge();
        });
      this.inFlight.add(attempt);
    }
  }

  private remember(eventIds: string[], links: readonly TraceLink[]): void {
    for (const id of eventIds) this.linksOf.set(id, links);
    for (const oldest of this.linksOf.keys()) {
      if (this.linksOf.size <= REMEMBERED_EVENT_LINKS) break;
      this.linksOf.delete(oldest);
    }
  }
}
