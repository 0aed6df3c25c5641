/**
 * POST /v1/payments/{id}/refunds (decision 18), top to bottom: a repeated
 * externalId answers its refund, or 409 `external_id_conflict` when that
 * refund is another payment's (decision 27); a new one is checked and its
 * amount reserved under the payment's row lock, then registered at the
 * gateway (registration.ts).
 *
 * The reservation is one short transaction that holds the payment's row
 * (`select … for update`: on PostgreSQL it serializes the refunds of one
 * payment across every node; PGlite serializes all transactions anyway):
 * it reads the payment's status and the refunds already pending or
 * succeeded, checks the new amount against what is left, and inserts the
 * refund `pending`. So concurrent refunds of one payment never add up to
 * more than its amount, and the lock is held for no gateway call.
 */
import type { z } from 'zod';
import type { CreateRefundInput as CreateRefundBody } from '../../contract/schemas/refund';
import { oneRowBy } from '../../db/one-row';
import type { CreateRefundInput, GatewayAdapter } from '../../gateways';
import { Payment } from '../payments/payment';
import { FIND_PAYMENT, findPayment } from '../payments/repository';
import { raises } from '../raises';
import { Refusal } from '../refusal';
import { gatewayIdempotencyKey, requestFingerprint } from '../registration/idempotency';
import type { RequestContext } from '../request-context';
import { ROUTE_EXISTING } from '../routing/directory';
import { answerExisting, insertWithLease, type Created } from '../registration/create-once';
import { Refund } from './refund';
import { REFUND_REGISTRATION, refundRegistration, registerRefund } from './registration';
import { refundByExternalId, reservedAmount } from './repository';

export type CreateRefundRequest = z.output<typeof CreateRefundBody>;

export const CREATE_REFUND = raises(['cannot_refund_status', 'external_id_conflict', 'invalid_input', 'not_implemented'], FIND_PAYMENT, ROUTE_EXISTING, REFUND_REGISTRATION);

const lockedPayment = oneRowBy(Payment, ['id'], { forUpdate: true });

type Reservation = { kind: 'new'; refund: Refund; request: CreateRefundInput } | { kind: 'existing'; refund: Refund };

const amountIssue = (message: string) => new Refusal('invalid_input', { issues: [{ path: ['amount'], message }] });

/** 501 where the gateway cannot make this refund: no refunds at all, or only of the whole payment. */
function assertGatewayCanRefund(adapter: GatewayAdapter, payment: Payment, amount: number | null): void {
  const can = adapter.capabilities.refunds;
  const refused = can === 'none' || (can === 'full' && amount !== null && amount !== payment.amount);
  if (refused) {
    const why = can === 'none' ? 'does not refund payments' : `refunds only a whole payment (${payment.amount}), at once`;
    throw new Refusal('not_implemented', { action: 'refund', provider: payment.gateway }, `${payment.gateway} ${why}.`);
  }
}

/**
 * The checks and the reservation, under the payment's row lock. Another
 * create of this externalId that committed first is answered instead, so a
 * repeated full refund replays rather than finding nothing left to refund.
 */
async function reserve(context: RequestContext, paymentId: string, body: CreateRefundRequest, adapter: GatewayAdapter, fingerprint: string): Promise<Reservation> {
  const environmentId = context.principal.environment.id;
  return context.em.transactional(async (tx) => {
    const payment = await lockedPayment(tx, [paymentId]);
    // Payments are never deleted: it was read a moment ago.
    if (!payment) throw new Error(`payment ${paymentId} vanished before its refund`);
    const earlier = await refundByExternalId(tx, [body.externalId, environmentId]);
    if (earlier) return { kind: 'existing', refund: earlier };
    if (payment.status !== 'paid') {
      throw new Refusal('cannot_refund_status', { status: payment.status }, `Only a paid payment can be refunded; this one is ${payment.status}.`);
    }
    assertGatewayCanRefund(adapter, payment, null);
    const reserved = await reservedAmount(tx, payment.id);
    const refundable = payment.amount - reserved;
    const what = `${refundable} of ${payment.amount} is refundable (${reserved} refunded or being refunded)`;
    if (refundable <= 0) throw amountIssue(`nothing is left to refund: ${what}`);
    const amount = body.amount ?? refundable;
    if (amount > refundable) throw amountIssue(`must be at most ${refundable}: ${what}`);
    assertGatewayCanRefund(adapter, payment, amount);

    const request: CreateRefundInput = {
      idempotencyKey: gatewayIdempotencyKey('refund', environmentId, body.externalId),
      paymentRef: payment.gatewayRef!,
      method: payment.method,
      amount,
      paymentAmount: payment.amount,
      reason: body.reason ?? null,
    };
    const refund = tx.create(
      Refund,
      {
        environment: environmentId,
        payment: payment.id,
        externalId: body.externalId,
        gateway: payment.gateway,
        amount,
        reason: body.reason ?? null,
        requestHash: fingerprint,
        createdAt: context.services.now(),
      },
      // Written by insertWithLease's statement, in this transaction, never by a flush.
      { persist: false },
    );
    if (await insertWithLease({ ...context, em: tx }, Refund, refund, request, { durable: true })) return { kind: 'new', refund, request };
    // A create of this externalId for another payment committed meanwhile: it is that payment's (answered 409 by answerRefund).
    const winner = await refundByExternalId(tx, [body.externalId, environmentId]);
    if (!winner) throw new Error(`refund ${body.externalId} conflicted but cannot be read`);
    return { kind: 'existing', refund: winner };
  });
}

/**
 * Decision 27: a refund's externalId belongs to the payment it refunds. On
 * another payment it is refused, naming that payment, rather than answering
 * a refund of a payment the caller did not ask about.
 */
function assertRefundOf(refund: Refund, paymentId: string): void {
  const owner = refund.payment.id;
  if (owner !== paymentId) {
    throw new Refusal('external_id_conflict', { paymentId: owner }, `This externalId belongs to a refund of payment ${owner}; refund this payment with another externalId.`);
  }
}

/** The refund that already exists for this externalId on this payment, registered (completing an interrupted registration). */
function answerRefund(context: RequestContext, paymentId: string, refund: Refund, fingerprint: string): Promise<Created<Refund>> {
  assertRefundOf(refund, paymentId);
  return answerExisting(context, refundRegistration, { externalId: refund.externalId, fingerprint }, refund);
}

export async function createRefund(context: RequestContext, paymentId: string, body: CreateRefundRequest): Promise<Created<Refund>> {
  const { em, services, principal } = context;
  const environmentId = principal.environment.id;
  const payment = await findPayment(em, environmentId, paymentId);
  const fingerprint = requestFingerprint({ paymentId: payment.id, ...body });

  const existing = await refundByExternalId(em, [body.externalId, environmentId]);
  if (existing) return answerRefund(context, payment.id, existing, fingerprint);

  const route = await services.gateways.forExisting(em, environmentId, payment.gateway);
  const reservation = await reserve(context, payment.id, body, route.adapter, fingerprint);
  if (reservation.kind === 'existing') return answerRefund({ ...context, em: em.fork() }, payment.id, reservation.refund, fingerprint);
  return { resource: await registerRefund(context, reservation.refund, route.adapter, reservation.request), replayed: false };
}
