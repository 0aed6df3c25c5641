/**
 * Creating a payment or subscription exactly once per (environment,
 * externalId). The unique constraint, not a read-then-write, decides races:
 * the request whose insert wins holds the registration lease and calls the
 * gateway with the request it already has in hand; a repeated or concurrent
 * create answers the existing resource, completing its registration first if
 * that is still under way or was interrupted (see lease.ts). Until the
 * gateway accepts it, the create request (which may carry the full tax
 * document) is kept sealed with the master key, for a take-over only.
 */
import { UniqueConstraintViolationException, type EntityClass } from '@mikro-orm/core';
import type { OneRowReader } from '../../db/one-row';
import type { EntityManager } from '../../db/orm';
import type { GatewayAdapter } from '../../gateways';
import type { DomainEvent } from '../events';
import { applyLocked } from '../locked-apply';
import type { RequestContext } from '../request-context';
import { raises } from '../raises';
import { ROUTE_EXISTING, type Route } from '../routing';
import { AWAIT_REGISTRATION, awaitRegistration, callGatewayForRegistration, leaseEnd, refusedByGateway } from './lease';
import type { GatewayResource } from './columns';

/** How one kind of resource is registered at its gateway. */
export interface RegistrationSteps<T extends GatewayResource, R, S> {
  entity: EntityClass<T>;
  /** Reads the resource by (externalId, environment id). */
  byExternalId: OneRowReader<T>;
  /** Sends the create request to the gateway. */
  call(adapter: GatewayAdapter, request: R): Promise<S>;
  /** Under the resource's row lock, for a resource not registered yet: takes the gateway's answer and returns the events. */
  commit(locked: T, snapshot: S, tx: EntityManager): DomainEvent[] | Promise<DomainEvent[]>;
}

/** A new resource built by the use case (not flushed yet), the route it was resolved to, and the request for its gateway. */
export interface PreparedResource<T, R> {
  resource: T;
  route: Route;
  request: R;
}

export interface CreateOnce<T extends GatewayResource, R, S> {
  steps: RegistrationSteps<T, R, S>;
  externalId: string;
  /** Fingerprint of the normalized request, kept to notice a repeat with a different payload. */
  fingerprint: string;
  /**
   * The checks and the routing of a new externalId, then the resource to
   * insert; not called for a repeat. Null: a concurrent create of this
   * externalId has inserted its resource meanwhile, answer that one.
   */
  prepare(): Promise<PreparedResource<T, R> | null>;
}

export interface Created<T> {
  resource: T;
  /** True when the answer is a resource that already existed for this externalId. */
  replayed: boolean;
}

export async function createOnce<T extends GatewayResource, R, S>(context: RequestContext, create: CreateOnce<T, R, S>): Promise<Created<T>> {
  const { em, services, principal } = context;
  const unique = [create.externalId, principal.environment.id];

  const existing = await create.steps.byExternalId(em, unique);
  if (existing) return { resource: await answerExisting(context, create, existing), replayed: true };

  const prepared = await create.prepare();
  if (!prepared) return answerWinner(context, create, em.fork());
  prepared.resource.pendingRequestSealed = services.secrets.sealJson(prepared.request);
  prepared.resource.registrationLeaseUntil = leaseEnd(services);
  try {
    await insertWithoutWaitingForDisk(em);
  } catch (error) {
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
    // A concurrent request inserted first: answer its resource, read through a fresh unit of work (this one holds the failed insert).
    return answerWinner(context, create, em.fork());
  }
  return { resource: await register(context, create.steps, prepared.resource, prepared.route.adapter, prepared.request), replayed: false };
}

/**
 * The insert that takes the lease commits without waiting for its WAL flush
 * (`synchronous_commit off` for this transaction only). Safe: nobody is
 * answered on the strength of it. The registration's own commit, made before
 * the answer, waits for the disk and so carries this row with it; and if the
 * database crashes first and loses the row, the retried create inserts it
 * again and calls the gateway with the same idempotency key (derived from the
 * environment and externalId), so the gateway answers the payment it already
 * made. Visible to other transactions at once, like any commit.
 */
async function insertWithoutWaitingForDisk(em: EntityManager): Promise<void> {
  await em.begin();
  try {
    await em.execute('set local synchronous_commit to off');
    await em.commit();
  } catch (error) {
    // The insert's own failure is what the caller needs (a unique violation means another request won), not a failed rollback's.
    await em.rollback().catch(() => undefined);
    throw error;
  }
}

/** The resource a concurrent create of this externalId inserted; gone again means its gateway refused it. */
async function answerWinner<T extends GatewayResource, R, S>(context: RequestContext, create: CreateOnce<T, R, S>, fresh: EntityManager): Promise<Created<T>> {
  const winner = await create.steps.byExternalId(fresh, [create.externalId, context.principal.environment.id]);
  if (!winner) throw refusedByGateway();
  return { resource: await answerExisting({ ...context, em: fresh }, create, winner), replayed: true };
}

async function answerExisting<T extends GatewayResource, R, S>(context: RequestContext, create: CreateOnce<T, R, S>, resource: T): Promise<T> {
  const { services, principal } = context;
  if (resource.requestHash !== create.fingerprint) {
    services.log.info({ resourceId: resource.id }, 'repeated externalId with a different payload: the existing resource is returned unchanged');
  }
  if (resource.isRegistered) return resource;
  return awaitRegistration(context.em, services, create.steps.entity, resource.id, async (em, current) => {
    // Taking over an interrupted create: its route and request come from what the first request stored.
    const route = await services.gateways.forExisting(em, principal.environment.id, current.gateway);
    const request = services.secrets.openJson<R>(current.pendingRequestSealed!);
    return register({ ...context, em }, create.steps, current, route.adapter, request);
  });
}

async function register<T extends GatewayResource, R, S>(
  context: RequestContext,
  steps: RegistrationSteps<T, R, S>,
  resource: T,
  adapter: GatewayAdapter,
  request: R,
): Promise<T> {
  const { em, services } = context;
  const snapshot = await callGatewayForRegistration(em, steps.entity, resource, () => steps.call(adapter, request));
  return applyLocked(em, services, steps.entity, resource.id, (locked, tx) => {
    if (locked.isRegistered) return [];
    locked.pendingRequestSealed = null;
    locked.registrationLeaseUntil = null;
    return steps.commit(locked, snapshot, tx);
  });
}

/** What creating once can answer with besides the use case's own checks: a refused or failed registration, a take-over's routing. */
export const CREATE_ONCE = raises([], AWAIT_REGISTRATION, ROUTE_EXISTING);
