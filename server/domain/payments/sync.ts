/**
 * POST /v1/payments/{id}/sync: asks the gateway now and applies its answer
 * through the state machine; also how a Pix code that failed to arrive at
 * creation (gateway_b) is recovered.
 */
import { Refusal } from '../refusal';
import type { Payment } from './payment';
import { GATEWAY_CALLS } from '../gateway-calls';
import { raises } from '../raises';
import type { RequestContext } from '../request-context';
import { ROUTE_EXISTING } from '../routing';
import { applyPaymentSnapshot } from './apply-snapshot';
import { FIND_PAYMENT, findPayment } from './repository';

export const SYNC_PAYMENT = raises(['missing_gateway_ref'], FIND_PAYMENT, ROUTE_EXISTING, GATEWAY_CALLS.getPayment);

export async function syncPayment(context: RequestContext, id: string): Promise<Payment> {
  const { em, services, principal } = context;
  const payment = await findPayment(em, principal.environment.id, id);
  if (!payment.gatewayRef) throw new Refusal('missing_gateway_ref', {}, 'The payment has not been registered at its gateway yet; repeat the create with the same externalId.');
  const route = await services.gateways.forExisting(em, principal.environment.id, payment.gateway);
  const snapshot = await route.adapter.getPayment(payment.gatewayRef);
  return applyPaymentSnapshot(em, services, payment.id, snapshot);
}
