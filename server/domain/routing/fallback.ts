/**
 * Registering a new resource through its rule's gateways in order (decision
 * 21): the create moves to the next gateway only when the one tried is
 * unavailable (availability.ts) or skipped by its circuit breaker, and only
 * before anything reached the caller — the caller is answered only after
 * the registration commits, so no customer-facing artifact (a Pix code, a
 * checkout link) of an abandoned attempt is ever handed out.
 *
 * Idempotency across the fallback — the rule:
 * - One caller at a time calls a gateway for one externalId: the holder of
 *   the registration lease (lease.ts). Racing and repeated creates wait for
 *   it and answer what it registered; a retry after the fallback landed
 *   answers the stored resource.
 * - The row names the gateway being tried and the request it is sent
 *   (sealed). Moving to the next gateway is one conditional UPDATE that
 *   also renews the lease, and only for the holder of the lease it set: a
 *   holder presumed dead (its lease lapsed and taken over) cannot move the
 *   resource anywhere any more.
 * - A take-over (a retry finding the lease lapsed, or reconciliation)
 *   completes at the row's gateway with the same idempotency key, so the
 *   gateway answers whatever the first attempt made there, and it never
 *   moves on: while the first attempt's outcome is unknown, no second
 *   gateway is ever asked, so no second live charge can appear elsewhere.
 * - An abandoned attempt that may have acted (a timeout, a reset, a 5xx)
 *   left at most one orphan at its gateway (the idempotency key is the same
 *   at every gateway). A card orphan is found again with that key and
 *   canceled; a subscription's checkout link is deactivated (gateway_c) or
 *   its subscription canceled; a Pix is left to expire (it was never shown).
 *   Its gatewayRef is never the resource's, so its webhooks and any
 *   reconciliation read never touch the resource (they look a resource up by
 *   its gateway and gatewayRef).
 */
import type { EntityClass } from '@mikro-orm/core';
import type { GatewayName } from '../../contract/enums';
import type { EntityManager } from '../../db/orm';
import { tableOf } from '../../db/rows';
import type { Services } from '../../services';
import { routingFallbacks } from '../../observability/routing-metrics';
import type { GatewayFailure } from '../../gateways';
import { refusalOf, UNFINISHED_REGISTRATION } from '../gateway-calls';
import { applyLocked } from '../locked-apply';
import { Refusal } from '../refusal';
import { raises } from '../raises';
import type { Route } from './directory';
import type { AttemptOutcome, OrphanFate, RoutingAttempt, RoutingTrace } from './trace';
import { unavailability, type Unavailability } from './availability';
import type { GatewayResource } from '../registration/columns';
import { attemptRegistration } from '../registration/attempt';
import { commitRegistration } from '../registration/commit';
import type { RegistrationSteps } from '../registration/steps';
import { leaseEnd, unfinished } from '../registration/lease';

/** Every gateway of the rule unavailable or unfit, or another request took the create over: 502 naming the gateway. */
export const REGISTER_ROUTED = raises([], UNFINISHED_REGISTRATION);

/** One gateway a create may be registered at, with the request as that gateway needs it. */
export interface Candidate<R> {
  route: Route;
  request: R;
  /** Columns of the resource that depend on the gateway (a subscription's plan and trial), written when the create moves to it. */
  columns?: Record<string, unknown>;
  /** Set when the request does not fit this gateway (what it requires): its turn is recorded as refused and passed. */
  unfit?: string;
}

/** What is done about an abandoned attempt's possible orphan once the create landed elsewhere. */
export interface OrphanSweep<R> {
  /** Finds the orphan again (the same idempotency key answers what the gateway made) and cancels it; the fate to record. */
  settle(route: Route, request: R): Promise<{ fate: OrphanFate; ref?: string }>;
  /** The fate recorded without calling anything (a Pix: left to expire), or null to call `settle`. */
  immediate(route: Route): OrphanFate | null;
  /** Once an orphan's reference is recorded: watch it for late money (decision 28; payments). */
  watch?(services: Services, resourceId: string): Promise<void>;
}

interface Abandoned<R> {
  attempt: number;
  candidate: Candidate<R>;
}

const ORPHAN_RETRY_MS = [1_000, 5_000, 30_000, 120_000, 600_000];

/**
 * Registers `resource` (inserted holding the registration lease, naming the
 * first candidate) at the first candidate that takes it. Answers the
 * registered resource, or throws what the last gateway tried answered.
 */
export async function registerRouted<T extends GatewayResource & { routingTrace?: RoutingTrace | null }, R, S>(
  context: { em: EntityManager; services: Services },
  steps: RegistrationSteps<T, R, S>,
  resource: T,
  candidates: Candidate<R>[],
  startTrace: RoutingTrace,
  orphans: OrphanSweep<R>,
): Promise<T> {
  const { em, services } = context;
  // A copy: the resource keeps the trace it was stored with, so the commit sees the attempts as a change to write.
  const trace = structuredClone(startTrace);
  const environmentId = resource.environment.id;
  const health = services.gateways.health;
  let lease = resource.registrationLeaseUntil;
  const abandoned: Abandoned<R>[] = [];
  const record = (gateway: GatewayName, outcome: AttemptOutcome, startedAt: Date, durationMs: number, detail?: string) => {
    const attempt: RoutingAttempt = { gateway, outcome, startedAt: startedAt.toISOString(), durationMs: Math.round(durationMs), ...(detail ? { detail } : {}) };
    trace.attempts.push(attempt);
    return trace.attempts.length - 1;
  };

  for (let index = 0; index < candidates.length; index++) {
    const candidate = candidates[index]!;
    const { gateway } = candidate.route;
    const isLast = index === candidates.length - 1;
    if (candidate.unfit) {
      record(gateway, 'refused', services.now(), 0, candidate.unfit);
      if (isLast) return giveUp(context, steps.entity, resource, trace, abandoned, orphans, unfinished(resource.gateway, 'no gateway of the rule fits the request'));
      continue;
    }
    const admission = await health.admit(environmentId, gateway);
    // A create is never left without a gateway to try: the last candidate is called even while its breaker is open.
    if (!admission.call && !isLast) {
      record(gateway, 'skipped', services.now(), 0, admission.reason);
      routingFallbacks.inc({ method: trace.method, from: gateway, reason: 'skipped' });
      continue;
    }
    if (resource.gateway !== gateway) {
      const moved = await moveTo(em, services, steps.entity, resource, candidate, lease, trace);
      // The lease lapsed and another request took the create over at the gateway it named: it answers, not us.
      if (!moved) throw unfinished(resource.gateway, 'another request took the create over');
      lease = moved;
    }
    const startedAt = services.now();
    const attempt = await attemptRegistration(steps.call, candidate.route.adapter, candidate.request);
    if (attempt.kind === 'refused') {
      // The gateway answered: it is up. It refused the request as asked, so nothing exists there and no other gateway is tried.
      await health.record(environmentId, gateway, 'success', attempt.ms);
      record(gateway, 'refused', startedAt, attempt.ms, detailOf(attempt.failure, attempt.error));
      await em.fork().nativeDelete(steps.entity, { id: resource.id, gatewayRef: null } as never);
      sweepLater(services, steps.entity, resource.id, environmentId, abandoned, orphans);
      throw attempt.error;
    }
    if (attempt.kind !== 'registered') {
      const outage = attempt.kind === 'unavailable' ? attempt.outage : null;
      if (outage) await health.record(environmentId, gateway, outage === 'timeout' ? 'timeout' : 'failure', attempt.ms);
      const index = record(gateway, outage === 'timeout' ? 'timeout' : 'unavailable', startedAt, attempt.ms, detailOf(attempt.failure, attempt.error));
      if (outage && outage !== 'refused_connection') abandoned.push({ attempt: index, candidate });
      if (outage && !isLast) {
        routingFallbacks.inc({ method: trace.method, from: gateway, reason: outage === 'timeout' ? 'timeout' : 'unavailable' });
        continue;
      }
      // Not an outage (answered as before), or no gateway left: the resource stays for a retry to complete at this gateway.
      return giveUp(context, steps.entity, resource, trace, abandoned, orphans, attempt.error);
    }
    const { snapshot } = attempt;
    await health.record(environmentId, gateway, 'success', attempt.ms);
    record(gateway, 'succeeded', startedAt, attempt.ms);
    trace.chosen = gateway;
    markOrphans(trace, abandoned, orphans);
    const committed = await commitRegistration(
      em,
      services,
      {
        entity: steps.entity,
        apply: (held) => {
          held.routingTrace = structuredClone(trace);
          return steps.register(held, snapshot);
        },
        companions: steps.companions,
      },
      resource,
    );
    if (committed.registered) sweepLater(services, steps.entity, resource.id, environmentId, abandoned, orphans);
    return committed.resource;
  }
  throw new Error('registerRouted called without candidates');
}

/**
 * Moves the create to the next gateway: the row names it, its request (sealed,
 * for a take-over) and trace, with a new lease — only while the lease is the
 * one this request set. Answers the new lease, or null when it was lost.
 */
async function moveTo<T extends GatewayResource, R>(
  em: EntityManager,
  services: Services,
  entity: EntityClass<T>,
  resource: T & { routingTrace?: RoutingTrace | null },
  candidate: Candidate<R>,
  lease: Date | null | undefined,
  trace: RoutingTrace,
): Promise<Date | null> {
  const table = tableOf(em, entity as EntityClass<object>);
  const next = leaseEnd(services);
  const sealed = services.secrets.sealJson(candidate.request);
  const columns = Object.entries(candidate.columns ?? {});
  const sets = [
    [table.column('gateway'), candidate.route.gateway],
    [table.column('pendingRequestSealed'), sealed],
    [table.column('registrationLeaseUntil'), next],
    [table.column('routingTrace'), JSON.stringify(trace)],
    ...columns.map(([property, value]) => [table.column(property), value] as const),
  ] as const;
  const rows = await em.execute<unknown[]>(
    `update ${table.table} set ${sets.map(([column]) => `${column} = ?`).join(', ')} ` +
      `where ${table.column('id')} = ? and ${table.column('gatewayRef')} is null and ${table.column('registrationLeaseUntil')} = ? returning ${table.column('id')}`,
    [...sets.map(([, value]) => value), resource.id, lease ?? null],
  );
  if (rows.length !== 1) return null;
  resource.gateway = candidate.route.gateway;
  resource.pendingRequestSealed = sealed;
  resource.registrationLeaseUntil = next;
  Object.assign(resource, candidate.columns ?? {});
  return next;
}

/**
 * No gateway registered it: the lease is released and the trace kept, so a
 * retry completes it at the gateway the row names. What the attempts at the
 * other gateways may have left is abandoned for good (a take-over never
 * returns to them), so it is settled like after a fallback.
 */
async function giveUp<T extends GatewayResource & { routingTrace?: RoutingTrace | null }, R>(
  context: { em: EntityManager; services: Services },
  entity: EntityClass<T>,
  resource: T,
  trace: RoutingTrace,
  abandoned: Abandoned<R>[],
  orphans: OrphanSweep<R>,
  error: unknown,
): Promise<never> {
  const table = tableOf(context.em, entity as EntityClass<object>);
  // Never the gateway the row names: a retry completes there with the same key, and must find what it made intact.
  abandoned = abandoned.filter(({ candidate }) => candidate.route.gateway !== resource.gateway);
  markOrphans(trace, abandoned, orphans);
  await context.em
    .fork()
    .execute(
      `update ${table.table} set ${table.column('registrationLeaseUntil')} = null, ${table.column('routingTrace')} = ? where ${table.column('id')} = ? and ${table.column('gatewayRef')} is null`,
      [JSON.stringify(trace), resource.id],
    );
  sweepLater(context.services, entity, resource.id, resource.environment.id, abandoned, orphans);
  throw error;
}

function markOrphans<R>(trace: RoutingTrace, abandoned: Abandoned<R>[], orphans: OrphanSweep<R>): void {
  for (const { attempt, candidate } of abandoned) trace.attempts[attempt]!.orphan = orphans.immediate(candidate.route) ?? 'cancel_pending';
}

/**
 * After the create landed (or was refused), settles what the abandoned
 * attempts may have left at their gateways, off the request's path, retrying
 * a gateway that is still down on a schedule; each fate is written to the
 * trace. A process that stops first leaves `cancel_pending` in the trace for
 * operators to see.
 */
function sweepLater<T extends GatewayResource & { routingTrace?: RoutingTrace | null }, R>(
  services: Services,
  entity: EntityClass<T>,
  resourceId: string,
  environmentId: string,
  abandoned: Abandoned<R>[],
  orphans: OrphanSweep<R>,
): void {
  const pending = abandoned.filter(({ candidate }) => orphans.immediate(candidate.route) === null);
  for (const { attempt, candidate } of pending) {
    let tries = 0;
    const run = async () => {
      let settled: { fate: OrphanFate; ref?: string };
      try {
        const route = await services.gateways.forExisting(services.db.fork(), environmentId, candidate.route.gateway);
        settled = await orphans.settle(route, candidate.request);
        services.log.info({ resourceId, gateway: candidate.route.gateway, fate: settled.fate }, 'abandoned routing attempt settled at its gateway');
      } catch (error) {
        const delay = ORPHAN_RETRY_MS[tries++];
        if (delay !== undefined) {
          setTimeout(() => void run(), delay).unref();
          return;
        }
        services.log.warn({ resourceId, gateway: candidate.route.gateway, err: error }, 'abandoned routing attempt could not be canceled at its gateway');
        settled = { fate: 'cancel_failed' };
      }
      // The resource is gone when its create was refused at the last gateway: then there is no trace to write.
      try {
        if ((await setOrphanFate(services, entity, resourceId, attempt, settled)) && settled.ref) await orphans.watch?.(services, resourceId);
      } catch (error) {
        services.log.warn({ resourceId, err: error }, 'could not record what became of an abandoned routing attempt');
      }
    };
    void run();
  }
}

async function setOrphanFate<T extends GatewayResource & { routingTrace?: RoutingTrace | null }>(
  services: Services,
  entity: EntityClass<T>,
  resourceId: string,
  attempt: number,
  settled: { fate: OrphanFate; ref?: string },
): Promise<boolean> {
  const em = services.db.fork();
  if (!(await em.findOne(entity, { id: resourceId } as never))) return false;
  let recorded = false;
  await applyLocked(em.fork(), services, entity, resourceId, (locked) => {
    const trace = locked.routingTrace ? structuredClone(locked.routingTrace) : null;
    const entry = trace?.attempts[attempt];
    if (!trace || !entry) return [];
    entry.orphan = settled.fate;
    if (settled.ref) entry.orphanRef = settled.ref;
    locked.routingTrace = trace;
    recorded = true;
    return [];
  });
  return recorded;
}

/** What an attempt's failure says, for the trace: the gateway's own words are in the log, never here. */
function detailOf(failure: GatewayFailure | null, error: unknown): string {
  const outage: Unavailability | null = unavailability(failure);
  if (outage === 'timeout') return 'no answer in time';
  if (outage === 'refused_connection') return 'connection refused';
  if (outage === 'reset') return 'connection broken before a complete answer';
  if (outage === 'server_error') return `answered ${failure!.status}`;
  if (failure?.kind === 'refused') return 'refused the request (validation)';
  // Any other failure is worded as the merchant was answered.
  if (failure) return `failed: ${refusalOf(failure).code}`;
  if (error instanceof Refusal) return `failed: ${error.code}`;
  return 'failed';
}
