/**
 * POST /v1/payments/{id}/cancel: an unpaid card payment, checked in the order
 * of decision 2, canceled at the gateway, then moved through the state machine.
 */
import { ApiError } from '../../contract/errors';
import type { PaymentStatus } from '../../contract/enums';
import type { Payment } from '../../db/entities';
import type { RequestContext } from '../request-context';
import { findPayment } from './lookup';
import { applyPaymentSnapshot } from './transitions';

const ENDED: readonly PaymentStatus[] = ['canceled', 'expired', 'failed'];

function assertCancelable(payment: Payment): void {
  const status = payment.status as PaymentStatus;
  if (payment.method === 'pix') throw new ApiError('cannot_cancel_pix');
  if (status === 'paid') throw new ApiError('cannot_cancel_paid');
  if (ENDED.includes(status)) throw new ApiError('already_canceled', { status });
  if (status === 'processing') throw new ApiError('cannot_cancel_status', { status }, 'The payment is being processed by the gateway and cannot be canceled now.');
  if (!payment.gatewayRef) throw new ApiError('missing_gateway_ref');
}

export async function cancelPayment(context: RequestContext, id: string): Promise<Payment> {
  const { em, services, principal } = context;
  const payment = await findPayment(em, principal.environment.id, id);
  assertCancelable(payment);
  const route = await services.gateways.forExisting(em, principal.environment.id, payment.gateway);
  if (!route.adapter.capabilities.paymentCancel) throw new ApiError('not_implemented', { action: 'cancel', provider: route.gateway });

  const snapshot = await route.adapter.cancelPayment(payment.gatewayRef!);
  const updated = await applyPaymentSnapshot(em, services, payment.id, snapshot);
  // The gateway may report that the payment moved on meanwhile (paid, expired): say so as the contract does.
  if (updated.status !== 'canceled') assertCancelable(updated);
  if (updated.status !== 'canceled') throw new ApiError('cannot_cancel_status', { status: updated.status });
  return updated;
}
