/**
 * POST /v1/payments: checks billing, quota and routing once for a new
 * externalId, then creates the payment exactly once (registration/create-once.ts).
 * The quota admits the create with one conditional increment (domain/quota.ts);
 * the month's usage row is written in the same transaction that records the
 * gateway's acceptance.
 */
import type { z } from 'zod';
import type { CreatePaymentInput as CreatePaymentBody } from '../../contract/schemas/payment';
import { Payment } from './payment';
import type { CreatePaymentInput, PaymentSnapshot } from '../../gateways';
import { isApiError } from '../../contract/errors';
import { assertBillingActive, BILLING_GATE, countTransaction, reserveTransaction, TRANSACTION_QUOTA } from '../billing';
import type { QuotaAdmission } from '../quota';
import { gatewayCustomer, storedCustomer } from '../customer';
import { GATEWAY_CALLS } from '../gateway-calls';
import { assertPaymentFitsGateway, GATEWAY_REQUIREMENTS } from '../gateway-requirements';
import { raises } from '../raises';
import { assertReturnUrlAllowed, RETURN_URL } from '../return-url';
import { CREATE_ONCE, createOnce, type Created, type RegistrationSteps } from '../registration/create-once';
import { gatewayIdempotencyKey, requestFingerprint } from '../registration/idempotency';
import type { RequestContext } from '../request-context';
import { paymentByExternalId } from './repository';
import { ROUTE_NEW } from '../routing';

export type CreatePaymentRequest = z.output<typeof CreatePaymentBody>;

export const CREATE_PAYMENT = raises([], RETURN_URL, BILLING_GATE, TRANSACTION_QUOTA, ROUTE_NEW, GATEWAY_REQUIREMENTS, CREATE_ONCE, GATEWAY_CALLS.createPayment);

export async function createPayment(context: RequestContext, request: CreatePaymentRequest): Promise<Created<Payment>> {
  const { em, services, principal } = context;
  const { environment, organization } = principal;
  // Part of validating the request (400), so before billing (402).
  assertReturnUrlAllowed(environment.kind, request.returnUrl);
  assertBillingActive(organization);
  const fingerprint = requestFingerprint(request);

  const steps: RegistrationSteps<Payment, CreatePaymentInput, PaymentSnapshot> = {
    entity: Payment,
    byExternalId: paymentByExternalId,
    call: (adapter, gatewayRequest) => adapter.createPayment(gatewayRequest),
    commit: async (locked, snapshot, tx) => {
      await countTransaction(tx, organization.id, locked);
      return locked.registerAtGateway(snapshot);
    },
  };
  // The payment's creation time is also the month its quota admission counts in.
  const at = services.now();
  // Set by prepare (a new externalId of an organization with a quota): the admission this create holds.
  let admission = null as QuotaAdmission | null;
  try {
    const created = await createOnce(context, {
      steps,
      externalId: request.externalId,
      fingerprint,
      prepare: async () => {
        const decision = await reserveTransaction(em, organization, {
          environmentId: environment.id,
          externalId: request.externalId,
          at,
          clock: services.now,
          gatewayTotalMs: services.config.gatewayTimeouts.totalMs,
        });
        if (decision === 'taken') return null;
        admission = decision;
        const route = await services.gateways.resolve(em, environment.id, request.method === 'pix' ? 'PIX' : 'CARD');
        const installments = request.method === 'card' ? (request.card?.installments ?? 1) : undefined;
        assertPaymentFitsGateway(route.gateway, { method: request.method, installments: installments ?? 1, phone: request.customer.phone });
        const gatewayRequest: CreatePaymentInput = {
          idempotencyKey: gatewayIdempotencyKey('payment', environment.id, request.externalId),
          amount: request.amount,
          method: request.method,
          customer: gatewayCustomer(request.customer),
          installments,
          ...(request.returnUrl !== undefined ? { returnUrl: request.returnUrl } : {}),
        };
        const payment = em.create(Payment, {
          environment,
          externalId: request.externalId,
          method: request.method,
          gateway: route.gateway,
          amount: request.amount,
          currency: request.currency,
          installments: installments ?? 1,
          ...storedCustomer(request.customer),
          metadata: request.metadata ?? null,
          requestHash: fingerprint,
          createdAt: at,
        });
        return { resource: payment, route, request: gatewayRequest };
      },
    });
    // A create answered with an existing payment keeps its admission: it holds the claim of this externalId, and the
    // one payment of it is counted once, whichever create inserted it (domain/quota.ts).
    return created;
  } catch (error) {
    // Refused before the insert, or refused by the gateway (the row is deleted): this admission will never be registered.
    // A gateway_error or an unexpected failure leaves a row that a retry completes, so its admission stays counted.
    if (isApiError(error) && error.code !== 'gateway_error') await admission?.release();
    throw error;
  }
}
