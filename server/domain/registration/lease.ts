/**
 * The registration lease. A resource row is inserted before its gateway is
 * called; while `registrationLeaseUntil` is in the future one request (on
 * any node: taking the lease is a conditional UPDATE) is calling the gateway
 * for it. Others wait for the result, or take the lease over when it lapses
 * (the holder failed or died) and complete the create with the same
 * idempotency key, so the gateway answers what it already did instead of
 * charging twice.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { EntityClass } from '@mikro-orm/core';
import type { GatewayName } from '../../contract/enums';
import { GatewayFailure } from '../../gateways';
import { Refusal } from '../refusal';
import type { EntityManager } from '../../db/orm';
import type { Services } from '../../services';
import { UNFINISHED_REGISTRATION } from '../gateway-calls';
import { raises } from '../raises';
import type { GatewayResource } from './columns';
import type { LeaseRule } from './steps';

const POLL_MS = 100;

/** How long one request may hold the registration: the gateway's whole timeout and some margin. */
export const leaseEnd = (services: Services): Date => new Date(services.now().getTime() + services.config.gatewayTimeouts.totalMs + 5_000);

export const AWAIT_REGISTRATION = raises(['invalid_input'], UNFINISHED_REGISTRATION);

/**
 * A create left unregistered for a retry to complete: its gateway counts as
 * unavailable (answered 502 at the edge), which is what the payment's quota
 * admission is kept for (payments/create.ts).
 */
export const unfinished = (gateway: GatewayName, why: string): GatewayFailure => GatewayFailure.unavailable(gateway, why);

/** The answer for a create whose resource vanished: the request that held its registration was refused by the gateway, which freed the externalId. */
export const refusedByGateway = (): Refusal<'invalid_input'> =>
  new Refusal('invalid_input', { issues: [{ path: [], message: 'the gateway refused this request; check it and retry' }] });

/**
 * Waits until the resource is registered by whoever holds the lease, or takes
 * the lease when it lapses and calls `register` with it.
 */
export async function awaitRegistration<T extends GatewayResource>(
  em: EntityManager,
  services: Services,
  rule: LeaseRule<T>,
  awaited: Pick<T, 'id' | 'gateway'>,
  register: (em: EntityManager, resource: T) => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + services.config.gatewayTimeouts.totalMs * 2 + 10_000;
  for (;;) {
    const fresh = em.fork();
    const current = await fresh.findOne(rule.entity, { id: awaited.id } as never);
    if (!current) throw rule.vanished ? rule.vanished(awaited.gateway) : refusedByGateway();
    if (current.isRegistered) return current;
    if (await takeLapsedLease(fresh, services, rule.entity, current.id, rule.takeable)) return register(fresh, current);
    if (Date.now() > deadline) throw unfinished(current.gateway, 'the registration did not finish in time');
    await sleep(POLL_MS);
  }
}

/**
 * Takes the registration lease of a resource not registered yet when nobody holds it (a conditional UPDATE: one taker
 * on any node); `takeable` is what else the row must be (LeaseRule).
 */
export async function takeLapsedLease<T extends GatewayResource>(
  em: EntityManager,
  services: Services,
  entity: EntityClass<T>,
  resourceId: string,
  takeable: Record<string, unknown> = {},
): Promise<boolean> {
  const taken = await em.nativeUpdate(
    entity,
    { ...takeable, id: resourceId, gatewayRef: null, $or: [{ registrationLeaseUntil: null }, { registrationLeaseUntil: { $lt: services.now() } }] } as never,
    { registrationLeaseUntil: leaseEnd(services) } as never,
  );
  return taken === 1;
}
