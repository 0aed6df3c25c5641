/**
 * POST /v1/payments/{id}/sync: asks the gateway now and applies its answer
 * through the state machine as the gateway's present truth (decision 17);
 * also how a Pix code that failed to arrive at creation (gateway_b) is
 * recovered. Background reconciliation reads payments the same way.
 */
import { Refusal } from '../refusal';
import { Payment } from './payment';
import type { EntityManager } from '../../db/orm';
import type { Services } from '../../services';
import { GATEWAY_CALLS, lostByTheGateway } from '../gateway-calls';
import { raises } from '../raises';
import type { RequestContext } from '../request-context';
import { ROUTE_EXISTING } from '../routing/directory';
import { applyPaymentSnapshot } from './apply-snapshot';
import { FIND_PAYMENT, findPayment } from './repository';
import { recordLostAtGateway } from '../reconciliation/lost';

export const SYNC_PAYMENT = raises(['missing_gateway_ref'], FIND_PAYMENT, ROUTE_EXISTING, GATEWAY_CALLS.getPayment);

export async function syncPayment(context: RequestContext, id: string): Promise<Payment> {
  const { em, services, principal } = context;
  const payment = await findPayment(em, principal.environment.id, id);
  if (!payment.gatewayRef) throw new Refusal('missing_gateway_ref', {}, 'The payment has not been registered at its gateway yet; repeat the create with the same externalId.');
  return refreshPayment(em, services, payment);
}

/**
 * Reads a registered payment from its gateway and applies the answer under
 * its row lock. A gateway that answers it does not know the payment is
 * recorded (operators see it; reconciliation stops asking) and refused as
 * `missing_gateway_ref`, never as a retryable gateway error.
 */
export async function refreshPayment(em: EntityManager, services: Services, payment: Payment): Promise<Payment> {
  const route = await services.gateways.forExisting(em, payment.environment.id, payment.gateway);
  const readAt = services.now();
  try {
    const snapshot = await route.adapter.getPayment(payment.gatewayRef!);
    return await applyPaymentSnapshot(em, services, payment.id, snapshot, readAt);
  } catch (error) {
    if (lostByTheGateway(error)) await recordLostAtGateway(em, services, Payment, payment);
    throw error;
  }
}
