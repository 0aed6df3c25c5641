/**
 * A refund's rule on the registration machine payments use (registration/):
 * the row is inserted holding the registration lease with its gateway request
 * sealed (create.ts), one request calls the gateway with an idempotency key
 * derived from the externalId, and its answer is committed with the refund's
 * events in one statement (registration/commit.ts). A repeated create, or
 * reconciliation, takes over a lapsed lease (registration/lease.ts) and calls
 * the gateway again with the same key, so the gateway answers the refund it
 * may already have made.
 *
 * What differs from a payment: no routing (the payment's gateway, once); a
 * gateway that refuses the refund leaves it `failed` with its reason
 * (refund.created, refund.failed) instead of removing it; a gateway that
 * cannot make it removes it (501, the externalId free again); and a refund
 * that became final is never taken over, whatever its lease says.
 */
import type { EntityManager } from '../../db/orm';
import type { CreateRefundInput, GatewayAdapter, GatewayFailure, RefundSnapshot } from '../../gateways';
import type { Services } from '../../services';
import { GATEWAY_CALLS, UNFINISHED_REGISTRATION } from '../gateway-calls';
import { applyLocked } from '../locked-apply';
import { raises } from '../raises';
import { Refusal } from '../refusal';
import { attemptRegistration } from '../registration/attempt';
import { commitRegistration, type CompanionInsert } from '../registration/commit';
import type { RegistrationSteps } from '../registration/steps';
import { ROUTE_EXISTING } from '../routing/directory';
import { Refund } from './refund';
import { refundByExternalId } from './repository';

export const REFUND_REGISTRATION = raises(['not_implemented'], ROUTE_EXISTING, UNFINISHED_REGISTRATION, GATEWAY_CALLS.createRefund);

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
function refusalReason(failure: GatewayFailure): string {
  const said = failure.issues.map((issue) => issue.message).filter(Boolean).join('; ');
  return said ? `the gateway refused the refund: ${said}` : 'the gateway refused the refund';
}

/** How a refund is registered at its payment's gateway, and taken over. */
export const refundRegistration: RegistrationSteps<Refund, CreateRefundInput, RefundSnapshot> = {
  entity: Refund,
  byExternalId: refundByExternalId,
  call: (adapter, request) => adapter.createRefund(request),
  register: (refund, snapshot) => refund.registerAtGateway(snapshot),
  companions: refundedTotalUpdate,
  // A refund the gateway refused is failed, final, with no gateway reference: nothing is left to register.
  takeable: { status: 'pending' },
  // Gone: only a gateway that cannot make the refund (501) removes one, which freed its externalId.
  vanished: (gateway) => new Refusal('not_implemented', { action: 'refund', provider: gateway }),
  takeOver: (context, refund, route, request) => registerRefund(context, refund, route.adapter, request),
};

/**
 * Calls the gateway for a refund whose registration lease the caller holds,
 * and records the outcome: the gateway's answer (registered, its events
 * committed), a refusal (failed, with its reason), a gateway that cannot
 * make it (removed, the error goes up as a 501), or nothing known (a
 * timeout, a 5xx: the refund stays pending, its lease released, and the
 * error goes up as a 502 to retry).
 */
export async function registerRefund(
  context: { em: EntityManager; services: Services },
  refund: Refund,
  adapter: GatewayAdapter,
  request: CreateRefundInput,
): Promise<Refund> {
  const { em, services } = context;
  const attempt = await attemptRegistration(refundRegistration.call, adapter, request);
  const pending = { id: refund.id, gatewayRef: null, status: 'pending' } as const;
  switch (attempt.kind) {
    case 'registered': {
      const { snapshot } = attempt;
      if (snapshot.amount !== refund.amount) {
        services.log.warn({ refundId: refund.id, gateway: refund.gateway, asked: refund.amount, answered: snapshot.amount }, 'the gateway answered a refund of another amount than asked');
      }
      const commit = { entity: Refund, apply: (held: Refund) => refundRegistration.register(held, snapshot), companions: refundedTotalUpdate };
      return (await commitRegistration(em, services, commit, refund)).resource;
    }
    case 'refused':
      services.log.info({ refundId: refund.id, gateway: refund.gateway }, 'the gateway refused the refund; it is failed');
      return applyLocked(em, services, Refund, refund.id, (locked) => locked.refusedByGateway(refusalReason(attempt.failure)));
    case 'unsupported':
      // Nothing was made at the gateway: the externalId is free again, and nothing stays reserved.
      await em.fork().nativeDelete(Refund, pending);
      throw attempt.error;
    default:
      await em.fork().nativeUpdate(Refund, pending, { registrationLeaseUntil: null });
      throw attempt.error;
  }
}
