/**
 * POST /v1/payments. Idempotency by (environment, externalId) rests on the
 * unique constraint, not on a read-then-write: the request whose insert wins
 * registers the payment at the gateway; concurrent duplicates wait for it and
 * answer the same payment. Nothing is charged twice because the gateway call
 * carries an idempotency key derived from the environment and externalId, so
 * a create that timed out is completed on retry with what the gateway did.
 */
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { ApiError } from '../../contract/errors';
import type { CreatePaymentInput as CreatePaymentBody } from '../../contract/schemas/payment';
import { Payment } from '../../db/entities';
import type { GatewayName } from '../../contract/enums';
import { gatewayCapabilities, type CreatePaymentInput } from '../../gateways';
import type { RequestContext } from '../request-context';
import { assertBillingActive, assertTransactionQuota } from '../billing';
import { gatewayCustomer, storedCustomer } from '../customer';
import { flushOrFindWinner, leaseEnd, noteRepeatedRequest } from '../registration';
import { completePaymentRegistration } from './registration';

export type CreatePaymentRequest = z.output<typeof CreatePaymentBody>;

/** Stable for one externalId in one environment, whatever the retry: what the gateway dedupes on. */
export const paymentIdempotencyKey = (environmentId: string, externalId: string): string =>
  createHash('sha256').update(`payment\u0000${environmentId}\u0000${externalId}`).digest('hex').slice(0, 48);

export const requestHash = (request: unknown): string => createHash('sha256').update(JSON.stringify(request)).digest('hex');

/** The gateway's own limits, checked before calling it (they would come back as a 422 otherwise). */
function assertGatewayAccepts(gateway: GatewayName, request: CreatePaymentRequest): void {
  const capabilities = gatewayCapabilities[gateway];
  const installments = request.card?.installments ?? 1;
  if (request.method === 'card' && installments > capabilities.maxInstallments) {
    throw new ApiError('invalid_input', {
      issues: [{ path: ['card', 'installments'], message: `${gateway} allows at most ${capabilities.maxInstallments} installments` }],
    });
  }
  if (request.method === 'card' && capabilities.phoneRequiredForCard && !request.customer.phone) {
    throw new ApiError('invalid_input', { issues: [{ path: ['customer', 'phone'], message: `is required for card payments on ${gateway}` }] });
  }
}

export async function createPayment(context: RequestContext, request: CreatePaymentRequest): Promise<Payment> {
  const { em, services, principal } = context;
  const { environment, organization } = principal;
  assertBillingActive(organization);

  const hash = requestHash(request);
  const existing = await em.findOne(Payment, { environment: environment.id, externalId: request.externalId });
  if (existing) return answerExisting(context, existing, hash);

  await assertTransactionQuota(em, organization, services.now());
  const route = await services.gateways.resolve(em, environment.id, request.method === 'pix' ? 'PIX' : 'CARD');
  assertGatewayAccepts(route.gateway, request);

  const gatewayRequest: CreatePaymentInput = {
    idempotencyKey: paymentIdempotencyKey(environment.id, request.externalId),
    amount: request.amount,
    method: request.method,
    customer: gatewayCustomer(request.customer),
    installments: request.method === 'card' ? (request.card?.installments ?? 1) : undefined,
  };
  const payment = em.create(Payment, {
    environment,
    externalId: request.externalId,
    method: request.method,
    gateway: route.gateway,
    amount: request.amount,
    currency: request.currency,
    installments: gatewayRequest.installments ?? 1,
    ...storedCustomer(request.customer),
    metadata: request.metadata ?? null,
    requestHash: hash,
    pendingRequestSealed: services.secrets.sealJson(gatewayRequest),
    registrationLeaseUntil: leaseEnd(services),
  });
  const race = await flushOrFindWinner(em, Payment, { environment: environment.id, externalId: request.externalId });
  if (race) return answerExisting({ ...context, em: race.em }, race.winner, hash);
  return completePaymentRegistration(context, payment, true);
}

async function answerExisting(context: RequestContext, payment: Payment, hash: string): Promise<Payment> {
  noteRepeatedRequest(context.services, payment, hash);
  return payment.isRegistered ? payment : completePaymentRegistration(context, payment, false);
}
