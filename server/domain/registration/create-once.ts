/**
 * Creating a payment, subscription or refund exactly once per (environment,
 * externalId), as steps a use case calls in order:
 *
 *   replayExisting → (the use case's checks, quota, routing) → insertWithLease
 *   → registerRouted (routing/fallback.ts: the gateway call, then commit.ts)
 *
 * A refund (refunds/create.ts) answers an existing one with `answerExisting`
 * once it checked the refund is of the same payment, inserts inside its
 * reservation, and calls its payment's gateway with its own rule instead of
 * routing (refunds/registration.ts).
 *
 * The unique constraint, not a read-then-write, decides races: the request
 * whose insert lands holds the registration lease and calls the gateway with
 * the request it already has in hand; a repeated or concurrent create answers
 * the existing resource (`answerWinner`), completing its registration first
 * if that is still under way or was interrupted (lease.ts). Until the gateway
 * accepts it, the create request (which may carry the full tax document) is
 * kept sealed with the master key, for a take-over only.
 */
import type { EntityClass } from '@mikro-orm/core';
import type { EntityManager } from '../../db/orm';
import { newRowColumns, tableOf } from '../../db/rows';
import type { RequestContext } from '../request-context';
import type { Services } from '../../services';
import { raises } from '../raises';
import { ROUTE_EXISTING } from '../routing/directory';
import type { GatewayResource } from './columns';
import { firstReadAt } from '../reconciliation/schedule';
import type { RoutingTrace } from '../routing/trace';
import { REGISTER_ROUTED, registerRouted, type OrphanSweep } from '../routing/fallback';
import type { RegistrationSteps } from './steps';

export type { RegistrationSteps } from './steps';
import { AWAIT_REGISTRATION, awaitRegistration, leaseEnd, refusedByGateway } from './lease';

/** One create request: its externalId and the fingerprint of its normalized payload. */
export interface CreateRequest {
  externalId: string;
  fingerprint: string;
}

export interface Created<T> {
  resource: T;
  /** True when the answer is a resource that already existed for this externalId. */
  replayed: boolean;
}

/** Step 1: the resource of this externalId, if there is one, registered (completing an interrupted registration). */
export async function replayExisting<T extends GatewayResource, R, S>(
  context: RequestContext,
  steps: RegistrationSteps<T, R, S>,
  create: CreateRequest,
): Promise<Created<T> | null> {
  const existing = await steps.byExternalId(context.em, [create.externalId, context.principal.environment.id]);
  return existing ? answerExisting(context, steps, create, existing) : null;
}

/**
 * The resource a concurrent create of this externalId inserted, read through
 * a fresh unit of work; gone again means its gateway refused it.
 */
export async function answerWinner<T extends GatewayResource, R, S>(
  context: RequestContext,
  steps: RegistrationSteps<T, R, S>,
  create: CreateRequest,
): Promise<Created<T>> {
  const fresh = context.em.fork();
  const winner = await steps.byExternalId(fresh, [create.externalId, context.principal.environment.id]);
  if (!winner) throw refusedByGateway();
  return answerExisting({ ...context, em: fresh }, steps, create, winner);
}

/**
 * Step 2: inserts the new resource holding the registration lease, with its
 * gateway request sealed for a take-over. False: a concurrent create of this
 * externalId inserted first (answer it with `answerWinner`).
 *
 * The statement commits on its own without waiting for its WAL flush
 * (`synchronous_commit` off for its transaction, set from RETURNING, which
 * runs before the commit). Safe: nobody is answered on the strength of it. The
 * registration's commit, made before the answer, waits for the disk and so
 * carries this row with it; and if the database crashes first and loses the
 * row, the retried create inserts it again and calls the gateway with the
 * same idempotency key (derived from the environment and externalId), so the
 * gateway answers the resource it already made. Visible to other
 * transactions at once, like any commit.
 *
 * `durable`: the commit waits for the disk as usual. A refund is inserted so,
 * inside its reservation (refunds/create.ts): money going out is never left
 * at a gateway with no row here for reconciliation to find, should nobody
 * retry the create.
 */
export async function insertWithLease<T extends GatewayResource, R>(
  context: RequestContext,
  entity: EntityClass<T>,
  resource: T,
  request: R,
  { durable = false }: { durable?: boolean } = {},
): Promise<boolean> {
  const { em, services } = context;
  resource.pendingRequestSealed = services.secrets.sealJson(request);
  resource.registrationLeaseUntil = leaseEnd(services);
  resource.reconcileAt = firstReadAt(services.now(), services.config.reconciliation.scheduleMs);
  const table = tableOf(em, entity as EntityClass<object>);
  const row = newRowColumns(em, resource);
  const inserted = await em.execute<unknown[]>(
    `insert into ${table.table} (${row.names.join(', ')}) values (${row.names.map(() => '?').join(', ')}) ` +
      `on conflict (${table.column('environment')}, ${table.column('externalId')}) do nothing ` +
      `returning ${durable ? table.column('id') : "set_config('synchronous_commit', 'off', true)"}`,
    row.values,
  );
  return inserted.length === 1;
}

/**
 * The resource that already exists for this externalId, registered. It is a
 * replay (`Idempotent-Replayed: true`) unless this request is the one that
 * completed its registration at the gateway: then the answer did new work.
 */
export async function answerExisting<T extends GatewayResource, R, S>(context: RequestContext, steps: RegistrationSteps<T, R, S>, create: CreateRequest, resource: T): Promise<Created<T>> {
  const { services } = context;
  if (resource.requestHash !== create.fingerprint) {
    services.log.info({ resourceId: resource.id }, 'repeated externalId with a different payload: the existing resource is returned unchanged');
  }
  if (resource.isRegistered) return { resource, replayed: true };
  let completedHere = false;
  const registered = await awaitRegistration(context.em, services, steps, resource, (em, current) => {
    completedHere = true;
    return completeRegistration(em, services, steps, current);
  });
  return { resource: registered, replayed: !completedHere };
}

/**
 * Takes over an interrupted create (its lease held by the caller): its route
 * and request come from what the first request stored, and the gateway is
 * called with the same idempotency key, so it answers what it may already
 * have made. Also how background reconciliation finishes a create that
 * nobody repeated.
 */
export async function completeRegistration<T extends GatewayResource, R, S>(em: EntityManager, services: Services, steps: RegistrationSteps<T, R, S>, current: T): Promise<T> {
  const route = await services.gateways.forExisting(em, current.environment.id, current.gateway);
  const request = services.secrets.openJson<R>(current.pendingRequestSealed!);
  if (steps.takeOver) return steps.takeOver({ em, services }, current, route, request);
  const routed = current as T & { routingTrace?: RoutingTrace | null };
  // Never another gateway: the first attempt's outcome here is unknown (routing/fallback.ts). The trace gets this attempt.
  const trace: RoutingTrace = routed.routingTrace ? structuredClone(routed.routingTrace) : { method: methodOf(current), rule: [], candidates: [], attempts: [], chosen: null, reason: 'created before routing traces were kept' };
  return registerRouted({ em, services }, steps, routed, [{ route, request }], trace, NO_ORPHANS);
}

const methodOf = (resource: object): RoutingTrace['method'] => ('method' in resource ? (resource.method === 'pix' ? 'PIX' : 'CARD') : 'SUBSCRIPTION');

/** A take-over tries one gateway, so it abandons nothing. */
const NO_ORPHANS: OrphanSweep<never> = { immediate: () => 'nothing_found', settle: async () => ({ fate: 'nothing_found' }) };

/** What creating once can answer with besides the use case's own checks: a refused or failed registration, a take-over's routing. */
export const CREATE_ONCE = raises([], AWAIT_REGISTRATION, ROUTE_EXISTING, REGISTER_ROUTED);
