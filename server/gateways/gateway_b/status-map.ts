/** Every status gateway_b documents, mapped to ours (see PROTOCOL.md, "Situações"). */
import type { PaymentStatus, SubscriptionStatus } from '../../contract/enums';
import type { GatewayRefundStatus } from '../adapter';
import type { StatusTable } from '../status-table';

export const paymentStatusTable: StatusTable<PaymentStatus> = {
  entries: {
    PENDENTE: 'pending',
    EM_ANALISE: 'processing',
    // Card authorized, not yet captured: money not guaranteed.
    AUTORIZADO: 'processing',
    CONFIRMADO: 'paid',
    RECEBIDO: 'paid',
    RECUSADO: 'failed',
    EXPIRADO: 'expired',
    VENCIDO: 'expired',
    CANCELADO: 'canceled',
  },
  fallback: 'processing',
};

export const subscriptionStatusTable: StatusTable<SubscriptionStatus> = {
  entries: {
    EM_TESTE: 'trialing',
    ATIVA: 'active',
    INADIMPLENTE: 'past_due',
    // Suspended for non-payment: the customer still owes the cycle.
    SUSPENSA: 'past_due',
    CANCELADA: 'canceled',
    // Ended by cancel-at-period-end.
    ENCERRADA: 'canceled',
  },
  fallback: 'active',
};

/** Card charge refunds (estornos, `est_…`). */
export const estornoStatusTable: StatusTable<GatewayRefundStatus> = {
  entries: {
    SOLICITADO: 'pending',
    PROCESSANDO: 'pending',
    ESTORNADO: 'succeeded',
    FALHOU: 'failed',
    // Withdrawn before it went through: no money went back.
    CANCELADO: 'failed',
  },
  // Never final: an unknown word cannot close a refund either way.
  fallback: 'pending',
};

/** Pix devoluções, in the Pix API's words. */
export const devolucaoStatusTable: StatusTable<GatewayRefundStatus> = {
  entries: {
    EM_PROCESSAMENTO: 'pending',
    DEVOLVIDO: 'succeeded',
    NAO_REALIZADO: 'failed',
  },
  fallback: 'pending',
};
