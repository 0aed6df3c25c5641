import type { PaymentBody } from '../../contract/schemas/payment';
import type { Payment } from './payment';

/** The Payment body of the contract: every field present, null where empty. */
export function paymentBody(payment: Payment): PaymentBody {
  const hasCustomer = payment.customerName != null || payment.customerEmail != null || payment.customerDocumentLast4 != null;
  return {
    id: payment.id,
    status: payment.status,
    method: payment.method,
    gateway: payment.gateway,
    amount: payment.amount,
    currency: 'BRL',
    externalId: payment.externalId,
    gatewayRef: payment.gatewayRef ?? null,
    customer: hasCustomer
      ? { name: payment.customerName ?? null, email: payment.customerEmail ?? null, documentLast4: payment.customerDocumentLast4 ?? null }
      : null,
    checkoutUrl: payment.method === 'card' ? (payment.checkoutUrl ?? null) : null,
    // The gateway hands both parts over together (gateways/adapter.ts PixCode), so they are stored together.
    pix: payment.method === 'pix' && payment.pixQrCode != null && payment.pixQrCodeText != null ? { qrCode: payment.pixQrCode, qrCodeText: payment.pixQrCodeText } : null,
    card: payment.cardBrand && payment.cardLast4 ? { brand: payment.cardBrand, last4: payment.cardLast4 } : null,
    createdAt: payment.createdAt.toISOString(),
    updatedAt: payment.updatedAt.toISOString(),
    paidAt: payment.paidAt?.toISOString() ?? null,
    expiresAt: payment.method === 'pix' ? (payment.expiresAt?.toISOString() ?? null) : null,
    subscriptionId: payment.subscriptionId ?? null,
    amountRefunded: payment.amountRefunded,
  };
}
