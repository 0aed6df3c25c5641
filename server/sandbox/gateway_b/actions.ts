/**
 * What the operator (and the tests) can make happen at gateway_b's sandbox:
 * the customer pays, declines or lets a cobrança expire, an assinatura
 * renews, fails its charge or falls behind. Each changes the state and
 * notifies, as the real gateway would.
 */
import type { SimulatorActions } from '../simulator/control';
import { addInterval, DEFAULT_CARD, requireOpen } from '../simulator/fixtures';
import { SimControlError } from '../simulator/server';
import { mapStatus } from '../../gateways/status-table';
import { devolucaoStatusTable, estornoStatusTable } from '../../gateways/gateway_b/status-map';
import { day, interval, isDevolucao, OPEN_ASSINATURA, OPEN_COBRANCA, type GatewayBState } from './state';

export function actionsOf(state: GatewayBState): SimulatorActions {
  return {
    payPayment(ref, card, paidAt = new Date()) {
      const c = state.cobranca(ref);
      requireOpen(c.status, OPEN_COBRANCA, 'cobrança');
      if (c.formaPagamento === 'PIX') return state.setCobranca(c, 'RECEBIDO', { pagoEm: paidAt.toISOString() });
      const paidWith = card ?? DEFAULT_CARD;
      state.setCobranca(c, 'CONFIRMADO', { cartao: { bandeira: paidWith.brand, ultimosDigitos: paidWith.last4 }, pagoEm: paidAt.toISOString() });
    },
    declinePayment(ref) {
      const c = state.cobranca(ref);
      requireOpen(c.status, OPEN_COBRANCA, 'cobrança');
      state.setCobranca(c, 'RECUSADO');
    },
    expirePayment(ref) {
      const c = state.cobranca(ref);
      requireOpen(c.status, OPEN_COBRANCA, 'cobrança');
      state.setCobranca(c, 'EXPIRADO');
    },
    setPaymentStatus(ref, rawStatus) {
      state.setCobranca(state.cobranca(ref), rawStatus);
    },
    completeCheckout(ref) {
      const a = state.assinatura(ref);
      requireOpen(a.status, OPEN_ASSINATURA, 'assinatura');
      state.checkoutDone.add(a.id);
      return { subscriptionRef: a.id };
    },
    raceNextDeactivation(ref) {
      state.assinatura(ref);
      throw new SimControlError(409, 'gateway_b assinaturas have no checkout link to deactivate');
    },
    renewSubscription(ref) {
      const a = state.assinatura(ref);
      requireOpen(a.status, OPEN_ASSINATURA, 'assinatura');
      if (a.cancelarNoFimDoCiclo) {
        state.endAssinatura(a, 'ENCERRADA');
        return { paymentRef: null };
      }
      const charge = state.chargeCycle(a, 'CONFIRMADO');
      const from = a.proximoVencimento ? new Date(`${a.proximoVencimento}T00:00:00.000Z`) : new Date();
      // The new due date is visible before the ATIVA notification goes out, so a fetch sees both.
      a.proximoVencimento = day(addInterval(from, interval(a.ciclo)));
      state.setAssinatura(a, { status: 'ATIVA' });
      return { paymentRef: charge.id };
    },
    failSubscriptionCharge(ref) {
      const a = state.assinatura(ref);
      requireOpen(a.status, OPEN_ASSINATURA, 'assinatura');
      return { paymentRef: state.chargeCycle(a, 'RECUSADO').id };
    },
    markPastDue(ref) {
      const a = state.assinatura(ref);
      requireOpen(a.status, OPEN_ASSINATURA, 'assinatura');
      state.setAssinatura(a, { status: 'INADIMPLENTE' });
    },
    endTrial(ref) {
      const a = state.assinatura(ref);
      if (a.status !== 'EM_TESTE') throw new SimControlError(409, `assinatura is ${a.status}`);
      state.setAssinatura(a, { status: 'ATIVA', fimTeste: day(new Date()) });
    },
    setSubscriptionStatus(ref, rawStatus) {
      const a = state.assinatura(ref);
      a.status = rawStatus;
      state.notify('ASSINATURA_ATUALIZADA', a.id);
    },
    settleRefund(ref) {
      state.moveRefund(state.refunds.pending(ref), 'succeeded');
    },
    failRefund(ref, reason) {
      const refund = state.refunds.pending(ref);
      state.moveRefund(refund, 'failed', reason ?? (isDevolucao(refund.wire) ? 'Conta transacional do pagador encerrada' : 'A operadora do cartão não devolveu o valor'));
    },
    setRefundStatus(ref, rawStatus) {
      const refund = state.refunds.named(ref);
      const mapped = mapStatus(isDevolucao(refund.wire) ? devolucaoStatusTable : estornoStatusTable, rawStatus);
      if (mapped.known) refund.state = mapped.status;
      state.setRefundWire(refund, rawStatus);
    },
    setRefundSettlement(mode) {
      state.refunds.settlement = mode;
    },
  };
}
