/**
 * POST /v1/payments/{id}/cancel: an unpaid card payment, checked by the
 * payment's cancel rules, canceled at the gateway, then moved through the
 * state machine; then watched for late money (decision 28).
 */
import { Refusal } from '../refusal';
import type { Payment } from './payment';
import { GATEWAY_CALLS } from '../gateway-calls';
import { raises } from '../raises';
import type { RequestContext } from '../request-context';
import { ROUTE_EXISTING } from '../routing/directory';
import { applyPaymentSnapshot } from './apply-snapshot';
import { FIND_PAYMENT, findPayment } from './repository';
import { assertCancelable, CANCEL_RULES } from './payment';
import { watchCanceledByService } from '../reconciliation/late-money';

export const CANCEL_PAYMENT = raises(['not_implemented', 'cannot_cancel_status'], FIND_PAYMENT, CANCEL_RULES, ROUTE_EXISTING, GATEWAY_CALLS.cancelPayment);

export async function cancelPayment(context: RequestContext, id: string): Promise<Payment> {
  const { em, services, principal } = context;
  const payment = await findPayment(em, principal.environment.id, id);
  assertCancelable(payment);
  const route = await services.gateways.forExisting(em, principal.environment.id, payment.gateway);
  if (!route.adapter.capabilities.paymentCancel) throw new Refusal('not_implemented', { action: 'cancel', provider: route.gateway });

  const calledAt = services.now();
  const snapshot = await route.adapter.cancelPayment(payment.gatewayRef!);
  const updated = await applyPaymentSnapshot(em, services, payment.id, snapshot, calledAt);
  // Canceled by our decision, not the gateway's: the customer may have paid as it was canceled, so it is watched (decision 28).
  if (updated.status === 'canceled') return watchCanceledByService(em, services, payment.id);
  // The gateway reports that the payment moved on meanwhile (paid, expired): answer as the cancel rules do for that status.
  assertCancelable(updated);
  throw new Refusal('cannot_cancel_status', { status: updated.status });
}
