/**
 * Background reconciliation of one node: every unfinished payment and
 * subscription, and every pending refund (refunds/reconcile.ts), is read
 * back from its gateway on its schedule (schedule.ts) until it is final, so
 * a lost notification never leaves one stuck; a payment that ended without
 * its gateway's word is read a day longer for late money (late-money.ts). What a read finds is applied
 * exactly as a sync applies it, with the same events; a create that was
 * interrupted and never repeated is finished with its stored request and
 * idempotency key, as a repeat of the create would.
 *
 * Each node runs a pass on a timer; claims in the database (claims.ts)
 * decide who reads what, so with several nodes each due resource is still
 * read once per step. Reads are spent from a per-gateway budget counted in
 * the shared counter store (Redis when configured, so all nodes share one
 * budget). Nothing here runs inside an API request.
 */
import type { EntityClass } from '@mikro-orm/core';
import type { GatewayName } from '../../contract/enums';
import { Environment, Project } from '../../db/entities';
import type { EntityManager } from '../../db/orm';
import { BackgroundLoop } from '../../runtime/background-loop';
import { unreachableDatabaseReason } from '../../db/unreachable';
import { Refusal } from '../refusal';
import type { Services } from '../../services';
import { gatewayFailureIn, lostByTheGateway, refusedByTheGateway } from '../gateway-calls';
import { paymentRegistration } from '../payments/create';
import { isFinalPaymentStatus, orphansToWatch, Payment } from '../payments/payment';
import { refreshPayment } from '../payments/sync';
import { completeRegistration, type RegistrationSteps } from '../registration/create-once';
import type { GatewayResource } from '../registration/columns';
import { takeLapsedLease } from '../registration/lease';
import { subscriptionRegistration } from '../subscriptions/create';
import { Subscription } from '../subscriptions/subscription';
import { refreshSubscription } from '../subscriptions/sync';
import { RECONCILED_REFUNDS } from '../refunds/reconcile';
import { claimDueReads, finishRead, releaseRead, type DueRead } from './claims';
import type { ReconciledKind } from './kind';
import { expireByClockWhenDue, paymentNeedsRead } from './late-money';
import { readOrphans } from './orphan-reports';
import { nextLateReadAt, nextReadAt } from './schedule';

/** Claimed at once per kind and pass; a pass continues while there is more due. */
const BATCH = 50;
/** A claimed read belongs to its node this long: the gateway's whole timeout and some margin, twice (a registration may call it). */
const leaseMsOf = (services: Services) => services.config.gatewayTimeouts.totalMs * 2 + 10_000;


async function organizationOf(em: EntityManager, environmentId: string): Promise<string> {
  const environment = await em.findOneOrFail(Environment, environmentId);
  const project = await em.findOneOrFail(Project, environment.project.id);
  return project.organization.id;
}

/** What reconciliation needs to know of one aggregate. */
interface KindSpec<T extends GatewayResource> {
  name: 'payment' | 'subscription';
  entity: EntityClass<T>;
  /** How its create is registered, to finish one that was interrupted. */
  registration(em: EntityManager, resource: T): Promise<RegistrationSteps<T, never, never>>;
  /** Its sync's own read of the gateway, applied under the row lock. */
  refresh(em: EntityManager, services: Services, resource: T): Promise<T>;
  isFinal(resource: T): boolean;
  pixExpiresAt(resource: T): Date | null;
  /** Whether its gateway is read at all (false: it ended by the gateway's word and nothing is watched). */
  needsRead?(resource: T): boolean;
  /** What follows a read (a Pix expired by our clock). */
  afterRead?(em: EntityManager, services: Services, resource: T): Promise<T>;
  /** Until when it is read on the late schedule (decision 28); null when it is not watched. */
  lateWatchUntil?(resource: T): Date | null;
}

function reconciledKind<T extends GatewayResource>(spec: KindSpec<T>): ReconciledKind {
  return {
    name: spec.name,
    entity: spec.entity as EntityClass<object>,
    async read(em, services, id) {
      const find = async (within: EntityManager) => (await within.findOne(spec.entity, { id } as never)) as T | null;
      let resource = await find(em);
      if (!resource) return null;
      if (resource.gatewayRef) {
        if (spec.needsRead?.(resource) ?? true) resource = await spec.refresh(em, services, resource);
        if (spec.afterRead) resource = await spec.afterRead(em, services, resource);
      } else {
        // A create nobody repeated: finished with its stored request when nobody else is registering it.
        if (await takeLapsedLease(em, services, spec.entity, id)) await completeRegistration(em, services, await spec.registration(em, resource), resource);
        resource = await find(em.fork());
        if (!resource) return null;
      }
      return { final: spec.isFinal(resource), pixExpiresAt: spec.pixExpiresAt(resource), lateWatchUntil: spec.lateWatchUntil?.(resource) ?? null };
    },
  };
}

const PAYMENTS = reconciledKind<Payment>({
  name: 'payment',
  entity: Payment,
  registration: async (em, payment) => paymentRegistration(await organizationOf(em, payment.environment.id)) as RegistrationSteps<Payment, never, never>,
  refresh: (em, services, payment) => refreshPayment(em, services, payment),
  isFinal: (payment) => isFinalPaymentStatus(payment.status),
  pixExpiresAt: (payment) => (payment.method === 'pix' ? (payment.expiresAt ?? null) : null),
  needsRead: paymentNeedsRead,
  afterRead: async (em, services, payment) => readOrphans(em, services, await expireByClockWhenDue(em, services, payment)),
  lateWatchUntil: (payment) =>
    isFinalPaymentStatus(payment.status) && (paymentNeedsRead(payment) || orphansToWatch(payment.routingTrace).length > 0) ? (payment.lateWatchUntil ?? null) : null,
});

const SUBSCRIPTIONS = reconciledKind<Subscription>({
  name: 'subscription',
  entity: Subscription,
  registration: async () => subscriptionRegistration as RegistrationSteps<Subscription, never, never>,
  refresh: (em, services, subscription) => refreshSubscription(em, services, subscription.id),
  isFinal: (subscription) => subscription.status === 'canceled',
  pixExpiresAt: () => null,
});

export const RECONCILED_KINDS: readonly ReconciledKind[] = [PAYMENTS, SUBSCRIPTIONS, RECONCILED_REFUNDS];

export class Reconciler {
  private stopped = false;
  /** The timer, one pass at a time, and the back-off while the database is out of reach (runtime/background-loop.ts). */
  private readonly loop: BackgroundLoop;

  constructor(private readonly services: Services) {
    this.loop = new BackgroundLoop({
      name: 'reconciliation',
      log: services.log,
      intervalMs: services.config.reconciliation.pollIntervalMs,
      pass: async () => {
        for (const kind of RECONCILED_KINDS) await this.readDue(kind);
      },
    });
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
  }

  /** One pass over everything due now; a pass still running is not started twice. Resolves when it ends (a failure is logged, not thrown). */
  pass(): Promise<void> {
    return this.loop.runNow();
  }

  private async readDue(kind: ReconciledKind): Promise<void> {
    const { services } = this;
    const spent = new Set<GatewayName>();
    for (;;) {
      if (this.stopped) return;
      const claims = await claimDueReads(services.db.fork(), kind.entity, services.now(), BATCH, leaseMsOf(services));
      for (const claim of claims) {
        if (this.stopped || spent.has(claim.gateway) || !(await this.withinBudget(claim.gateway))) {
          spent.add(claim.gateway);
          await releaseRead(services.db.fork(), kind.entity, claim.id);
          continue;
        }
        await this.readOne(kind, claim);
      }
      if (claims.length < BATCH || spent.size > 0) return;
    }
  }

  /** One read from the gateway's budget (per minute, shared by all nodes through the counter store). */
  private async withinBudget(gateway: GatewayName): Promise<boolean> {
    const perMinute = this.services.config.reconciliation.ratePerGatewayPerSecond * 60;
    // The rate limiter's windows are keyed by an API key id; this key names the gateway's budget instead, and no key id looks like it.
    const decision = await this.services.rateLimiter.consume('default', `reconciliation:${gateway}`, perMinute);
    return decision.allowed;
  }

  private async readOne(kind: ReconciledKind, claim: DueRead): Promise<void> {
    const { services } = this;
    const { scheduleMs, lateScheduleMs, lateWindowMs } = services.config.reconciliation;
    const startedAt = services.now();
    let found: Awaited<ReturnType<ReconciledKind['read']>> = null;
    try {
      found = await kind.read(services.db.fork(), services, claim.id);
      if (!found) return;
    } catch (error) {
      // The database out of reach fails the whole pass (one warning for the outage, then a back-off), not a warning per resource.
      // (A refusal, or a gateway's own network failure, is never the database's.)
      if (!(error instanceof Refusal) && !gatewayFailureIn(error) && unreachableDatabaseReason(error)) throw error;
      // A lost resource was recorded by the read itself (warn, off the schedule); anything else is tried again at the next step.
      if (refusedByTheGateway(error)) {
        // Finishing an interrupted create, the gateway refused its request: as for the create itself, the row is gone.
        services.log.warn({ [`${kind.name}Id`]: claim.id, gateway: claim.gateway }, `the gateway refused the interrupted create of this ${kind.name}; it was removed and its externalId is free again`);
      } else if (!lostByTheGateway(error)) {
        services.log.warn({ err: error, [`${kind.name}Id`]: claim.id, gateway: claim.gateway }, `reconciliation could not read the ${kind.name}; it is read again at its next step`);
      }
    }
    // Ended without its gateway's word: read on the late schedule until its watch ends (decision 28).
    const next = found?.lateWatchUntil
      ? nextLateReadAt(services.now(), found.lateWatchUntil, lateWindowMs, lateScheduleMs)
      : found?.final
        ? null
        : nextReadAt(startedAt, claim.reads + 1, scheduleMs, found?.pixExpiresAt ?? null);
    await finishRead(services.db.fork(), kind.entity, claim.id, services.now(), next);
  }
}
