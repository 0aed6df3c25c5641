/**
 * POST /v1/payments, top to bottom: a repeat answers the payment of its
 * externalId; a new one is checked, admitted by the quota (domain/quota.ts),
 * routed, inserted holding its registration lease, sent to its gateway and
 * committed with its events and the month's usage (registration/). The
 * quota's admission is released here when the payment will never exist.
 */
import type { z } from 'zod';
import type { CreatePaymentInput as CreatePaymentBody } from '../../contract/schemas/payment';
import { isRefusal } from '../refusal';
import type { CreatePaymentInput, PaymentSnapshot } from '../../gateways';
import { assertBillingActive, BILLING_GATE, reserveTransaction, TRANSACTION_QUOTA, transactionUsageInsert } from '../billing';
import { gatewayCustomer, storedCustomer } from '../customer';
import { GATEWAY_CALLS, gatewayFailureIn } from '../gateway-calls';
import { assertPaymentFitsGateway, GATEWAY_REQUIREMENTS } from '../gateway-requirements';
import { raises } from '../raises';
import { assertReturnUrlAllowed, RETURN_URL } from '../return-url';
import { answerWinner, CREATE_ONCE, insertWithLease, replayExisting, type Created, type RegistrationSteps } from '../registration/create-once';
import { registerRouted, type OrphanSweep } from '../routing/fallback';
import { startTrace, unfitReason } from '../routing/candidates';
import { gatewayIdempotencyKey, requestFingerprint } from '../registration/idempotency';
import type { RequestContext } from '../request-context';
import { ROUTE_NEW } from '../routing/directory';
import { Payment } from './payment';
import { paymentByExternalId } from './repository';
import { watchOrphans } from '../reconciliation/orphan-reports';

export type CreatePaymentRequest = z.output<typeof CreatePaymentBody>;

export const CREATE_PAYMENT = raises([], RETURN_URL, BILLING_GATE, TRANSACTION_QUOTA, ROUTE_NEW, GATEWAY_REQUIREMENTS, CREATE_ONCE, GATEWAY_CALLS.createPayment);

/** How a payment is registered at its gateway (also used by reconciliation to finish an interrupted create). */
export const paymentRegistration = (organizationId: string): RegistrationSteps<Payment, CreatePaymentInput, PaymentSnapshot> => ({
  entity: Payment,
  byExternalId: paymentByExternalId,
  call: (adapter, request) => adapter.createPayment(request),
  register: (payment, snapshot) => payment.registerAtGateway(snapshot),
  companions: (payment) => [transactionUsageInsert(organizationId, payment)],
});

export async function createPayment(context: RequestContext, request: CreatePaymentRequest): Promise<Created<Payment>> {
  const { em, services, principal } = context;
  const { environment, organization } = principal;
  // Validating the request (400) comes before billing (402), then routing (409), then the gateway (502): decision 5.
  assertReturnUrlAllowed(environment.kind, request.returnUrl);
  // Routing is resolved quietly first, since what the routed gateway requires is validation too; its refusal waits.
  // The first gateway to try must take the request as it is (400 otherwise); a fallback that cannot is passed over.
  const routing = await services.gateways.plan(em, environment.id, request.method === 'pix' ? 'PIX' : 'CARD', request.externalId);
  const installments = request.method === 'card' ? (request.card?.installments ?? 1) : 1;
  const fit = { method: request.method, installments, phone: request.customer.phone };
  if (routing.routes[0]) assertPaymentFitsGateway(routing.routes[0].gateway, fit);
  assertBillingActive(organization);
  const steps = paymentRegistration(organization.id);
  const create = { externalId: request.externalId, fingerprint: requestFingerprint(request) };

  const replayed = await replayExisting(context, steps, create);
  if (replayed) return replayed;

  // The payment's creation time is also the month its quota admission counts in.
  const at = services.now();
  const admission = await reserveTransaction(em, organization, {
    environmentId: environment.id,
    externalId: request.externalId,
    at,
    clock: services.now,
    gatewayTotalMs: services.config.gatewayTimeouts.totalMs,
  });
  // A concurrent create of this externalId holds its claim: answer its payment.
  if (admission === 'taken') return answerWinner(context, steps, create);

  try {
    if (routing.refusal) throw routing.refusal;
    const route = routing.routes[0]!;
    const gatewayRequest: CreatePaymentInput = {
      idempotencyKey: gatewayIdempotencyKey('payment', environment.id, request.externalId),
      amount: request.amount,
      method: request.method,
      customer: gatewayCustomer(request.customer),
      installments: request.method === 'card' ? installments : undefined,
      ...(request.returnUrl !== undefined ? { returnUrl: request.returnUrl } : {}),
    };
    const payment = em.create(
      Payment,
      {
        environment,
        externalId: request.externalId,
        method: request.method,
        gateway: route.gateway,
        amount: request.amount,
        currency: request.currency,
        installments,
        ...storedCustomer(request.customer),
        metadata: request.metadata ?? null,
        requestHash: create.fingerprint,
        createdAt: at,
      },
      // Written by insertWithLease's own statement, never by a flush of this unit of work.
      { persist: false },
    );
    // A create answered with an existing payment keeps its admission: it holds the claim of this externalId, and the
    // one payment of it is counted once, whichever create inserted it (domain/quota.ts).
    payment.routingTrace = startTrace(routing);
    if (!(await insertWithLease(context, Payment, payment, gatewayRequest))) return await answerWinner(context, steps, create);
    const candidates = routing.routes.map((candidate) => ({ route: candidate, request: gatewayRequest, unfit: unfitReason(() => assertPaymentFitsGateway(candidate.gateway, fit)) }));
    return { resource: await registerRouted(context, steps, payment, candidates, payment.routingTrace, paymentOrphans(request.method)), replayed: false };
  } catch (error) {
    // Refused before the insert, or by the gateway (the row is deleted): this admission will never be registered.
    // A gateway that was unavailable (or a create left unfinished, registration/lease.ts) or an unexpected failure leaves
    // a row that a retry completes, so its admission stays counted.
    if (isRefusal(error) || gatewayFailureIn(error)?.retryable === false) await admission?.release();
    throw error;
  }
}

/**
 * What an abandoned payment attempt may have left at its gateway (decision 21):
 * a Pix code nobody was shown is left to expire; a card charge is found again
 * by its idempotency key and canceled where the gateway can cancel.
 */
function paymentOrphans(method: 'pix' | 'card'): OrphanSweep<CreatePaymentInput> {
  return {
    immediate: (route) => (method === 'pix' || !route.adapter.capabilities.paymentCancel ? 'left_to_expire' : null),
    async settle(route, request) {
      const orphan = await route.adapter.createPayment(request);
      if (!['canceled', 'failed', 'expired'].includes(orphan.status)) await route.adapter.cancelPayment(orphan.gatewayRef);
      return { fate: 'canceled', ref: orphan.gatewayRef };
    },
    // Canceled by our decision, not its gateway's word: read for late money like a payment the service canceled (decision 28).
    watch: (services, paymentId) => watchOrphans(services.db.fork(), services, paymentId),
  };
}
