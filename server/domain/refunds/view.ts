import type { RefundBody } from '../../contract/schemas/refund';
import type { Refund } from './refund';

/** The Refund body of the contract: every field present, null where empty. */
export function refundBody(refund: Refund): RefundBody {
  return {
    id: refund.id,
    paymentId: refund.payment.id,
    externalId: refund.externalId,
    status: refund.status,
    amount: refund.amount,
    currency: 'BRL',
    reason: refund.reason ?? null,
    gateway: refund.gateway,
    gatewayRef: refund.gatewayRef ?? null,
    failureReason: refund.failureReason ?? null,
    createdAt: refund.createdAt.toISOString(),
    updatedAt: refund.updatedAt.toISOString(),
  };
}
