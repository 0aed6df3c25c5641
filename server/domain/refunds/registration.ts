/**
 * Registering a refund at its gateway, exactly once per (environment,
 * externalId), with the machinery payments use (registration/): the row is
 * inserted holding the registration lease with its gateway request sealed,
 * one request calls the gateway with an idempotency key derived from the
 * externalId, and its answer is committed with the refund's events in one
 * statement (registration/commit.ts). A repeated create, or reconciliation,
 * takes over a lapsed lease and calls the gateway again with the same key,
 * so the gateway answers the refund it may already have made.
 *
 * What differs from a payment: a gateway that refuses the refund leaves it
 * `failed` with its reason (refund.created, refund.failed), and a refund
 * that became final is never taken over, whatever its lease says.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { EntityManager } from '../../db/orm';
import type { CreateRefundInput, GatewayAdapter, RefundSnapshot } from '../../gateways';
import type { Services } from '../../services';
import { GATEWAY_CALLS, gatewayFailureIn, refusedByTheGateway } from '../gateway-calls';
import { applyLocked } from '../locked-apply';
import { raises } from '../raises';
import { Refusal } from '../refusal';
import { commitRegistration, type CompanionInsert } from '../registration/commit';
import { leaseEnd } from '../registration/lease';
import { ROUTE_EXISTING } from '../routing/directory';
import { Refund } from './refund';

const POLL_MS = 100;

export const REFUND_REGISTRATION = raises(['not_implemented', 'gateway_error'], ROUTE_EXISTING, GATEWAY_CALLS.createRefund);

/** The payment's refunded total grows by a refund that succeeded, in the statement that records it. */
function refundedTotalUpdate(refund: Refund): CompanionInsert[] {
  if (refund.status !== 'succeeded') return [];
  return [
    {
      sql: `update payments set amount_refunded = amount_refunded + ?, updated_at = ?::timestamptz where id = ? and exists (select 1 from registered)`,
      params: [refund.amount, new Date(), refund.payment.id],
    },
  ];
}

/** The gateway's words for a refusal, kept as the refund's failureReason. */
function refusalReason(error: unknown): string {
  const issues = gatewayFailureIn(error)?.issues ?? [];
  const said = issues.map((issue) => issue.message).filter(Boolean).join('; ');
  return said ? `the gateway refused the refund: ${said}` : 'the gateway refused the refund';
}

/**
 * Calls the gateway for a refund whose registration lease the caller holds,
 * and records the outcome: the gateway's answer (registered, its events
 * committed), a refusal (failed, with its reason), or nothing known (a
 * timeout, a 5xx: the refund stays pending, its lease released, and the
 * error goes up as a 502 to retry).
 */
export async function registerRefund(em: EntityManager, services: Services, refund: Refund, adapter: GatewayAdapter, request: CreateRefundInput): Promise<Refund> {
  let snapshot: RefundSnapshot;
  try {
    snapshot = await adapter.createRefund(request);
  } catch (error) {
    if (refusedByTheGateway(error)) {
      services.log.info({ refundId: refund.id, gateway: refund.gateway }, 'the gateway refused the refund; it is failed');
      return applyLocked(em, services, Refund, refund.id, (locked) => locked.refusedByGateway(refusalReason(error)));
    }
    const pending = { id: refund.id, gatewayRef: null, status: 'pending' } as const;
    if (gatewayFailureIn(error)?.kind === 'unsupported') {
      // Nothing was made at the gateway: the externalId is free again, and nothing stays reserved.
      await em.fork().nativeDelete(Refund, pending);
    } else {
      await em.fork().nativeUpdate(Refund, pending, { registrationLeaseUntil: null });
    }
    throw error;
  }
  if (snapshot.amount !== refund.amount) {
    services.log.warn({ refundId: refund.id, gateway: refund.gateway, asked: refund.amount, answered: snapshot.amount }, 'the gateway answered a refund of another amount than asked');
  }
  const committed = await commitRegistration(em, services, { entity: Refund, apply: (held) => held.registerAtGateway(snapshot), companions: refundedTotalUpdate }, refund);
  return committed.resource;
}

/** Takes the registration lease of a pending, unregistered refund when nobody holds it (a conditional UPDATE: one taker on any node). */
export async function takeRefundLease(em: EntityManager, services: Services, refundId: string): Promise<boolean> {
  const taken = await em.nativeUpdate(
    Refund,
    { id: refundId, gatewayRef: null, status: 'pending', $or: [{ registrationLeaseUntil: null }, { registrationLeaseUntil: { $lt: services.now() } }] },
    { registrationLeaseUntil: leaseEnd(services) },
  );
  return taken === 1;
}

/** Completes an interrupted refund (its lease held by the caller) with its stored request: same route, same idempotency key. */
export async function completeRefundRegistration(em: EntityManager, services: Services, refund: Refund): Promise<Refund> {
  const route = await services.gateways.forExisting(em, refund.environment.id, refund.gateway);
  const request = services.secrets.openJson<CreateRefundInput>(refund.pendingRequestSealed!);
  return registerRefund(em, services, refund, route.adapter, request);
}

/**
 * Waits until the refund is registered by whoever holds its lease, or takes
 * the lease when it lapses and completes the registration. `completedHere`
 * tells whether this caller made the gateway call that registered it.
 */
export async function awaitRefundRegistration(em: EntityManager, services: Services, waited: Pick<Refund, 'id' | 'gateway'>): Promise<{ refund: Refund; completedHere: boolean }> {
  const deadline = Date.now() + services.config.gatewayTimeouts.totalMs * 2 + 10_000;
  for (;;) {
    const fresh = em.fork();
    const current = await fresh.findOne(Refund, { id: waited.id });
    // Gone: only a gateway that cannot make the refund (501) removes one, which freed its externalId.
    if (!current) throw new Refusal('not_implemented', { action: 'refund', provider: waited.gateway });
    if (current.isRegistered) return { refund: current, completedHere: false };
    if (await takeRefundLease(fresh, services, current.id)) return { refund: await completeRefundRegistration(fresh, services, current), completedHere: true };
    if (Date.now() > deadline) throw new Refusal('gateway_error', { provider: current.gateway });
    await sleep(POLL_MS);
  }
}
