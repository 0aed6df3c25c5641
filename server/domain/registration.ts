/**
 * Registering a stored resource (payment or subscription) at its gateway,
 * exactly once. One request at a time holds the registration lease (a
 * conditional UPDATE, so it holds across nodes); it calls the gateway with the
 * resource's idempotency key. Others wait for its result, or take the lease
 * over when it lapses (the holder failed or died) and complete the create with
 * the same key, so the gateway answers what it already did instead of
 * charging twice.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { UniqueConstraintViolationException, type EntityClass } from '@mikro-orm/core';
import type { GatewayName } from '../contract/enums';
import { ApiError, isApiError } from '../contract/errors';
import type { EntityManager } from '../db/orm';
import type { Services } from '../services';

const POLL_MS = 100;

export interface Registrable {
  id: string;
  gateway: GatewayName;
  gatewayRef?: string | null;
  registrationLeaseUntil?: Date | null;
  requestHash: string;
  readonly isRegistered: boolean;
}

/**
 * Commits a new resource. The unique (environment, externalId) decides races:
 * when a concurrent request inserted first, its resource is returned (read
 * through a fresh unit of work, since this one holds the failed insert).
 */
export async function flushOrFindWinner<T extends Registrable>(
  em: EntityManager,
  entity: EntityClass<T>,
  unique: { environment: string; externalId: string },
): Promise<{ em: EntityManager; winner: T } | null> {
  try {
    await em.flush();
    return null;
  } catch (error) {
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
    const fresh = em.fork();
    return { em: fresh, winner: await fresh.findOneOrFail(entity, unique as never) };
  }
}

/** Decision 7: a repeated externalId answers the existing resource unchanged; a different payload is only logged. */
export function noteRepeatedRequest(services: Services, resource: Registrable, hash: string): void {
  if (resource.requestHash !== hash) {
    services.log.info({ resourceId: resource.id }, 'repeated externalId with a different payload: the existing resource is returned unchanged');
  }
}

/** How long one request may hold the registration: the gateway's whole timeout and some margin. */
export const leaseEnd = (services: Services): Date => new Date(services.now().getTime() + services.config.gatewayTimeouts.totalMs + 5_000);

export interface RegistrationOptions<T extends Registrable> {
  em: EntityManager;
  services: Services;
  entity: EntityClass<T>;
  resource: T;
  /** True when this request inserted the resource (and so holds the lease). */
  owned: boolean;
  /** Calls the gateway and commits the result; runs only while holding the lease. */
  register(em: EntityManager, resource: T): Promise<T>;
}

export async function completeRegistration<T extends Registrable>(options: RegistrationOptions<T>): Promise<T> {
  const { services, entity } = options;
  const deadline = Date.now() + services.config.gatewayTimeouts.totalMs * 2 + 10_000;
  if (options.owned) return options.register(options.em, options.resource);
  for (;;) {
    const em = options.em.fork();
    const current = await em.findOne(entity, { id: options.resource.id } as never);
    if (!current) {
      // The holder's gateway refused the request and freed the externalId.
      throw new ApiError('invalid_input', { issues: [{ path: [], message: 'the gateway refused this request; check it and retry' }] });
    }
    if (current.isRegistered) return current;
    const taken = await em.nativeUpdate(
      entity,
      { id: current.id, gatewayRef: null, $or: [{ registrationLeaseUntil: null }, { registrationLeaseUntil: { $lt: services.now() } }] } as never,
      { registrationLeaseUntil: leaseEnd(services) } as never,
    );
    if (taken === 1) return options.register(em, current);
    if (Date.now() > deadline) throw new ApiError('gateway_error', { provider: current.gateway });
    await sleep(POLL_MS);
  }
}

/**
 * Calls the gateway for a resource being registered. A refusal (invalid_input)
 * means nothing exists there, so the resource is removed and its externalId
 * freed; any other failure leaves it for a retry to complete.
 */
export async function callGatewayForRegistration<T extends Registrable, R>(
  em: EntityManager,
  entity: EntityClass<T>,
  resource: T,
  call: () => Promise<R>,
): Promise<R> {
  try {
    return await call();
  } catch (error) {
    if (isApiError(error) && error.code === 'invalid_input') {
      await em.fork().nativeDelete(entity, { id: resource.id, gatewayRef: null } as never);
    } else {
      await em.fork().nativeUpdate(entity, { id: resource.id, gatewayRef: null } as never, { registrationLeaseUntil: null } as never);
    }
    throw error;
  }
}
