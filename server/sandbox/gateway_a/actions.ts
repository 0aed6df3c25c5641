/**
 * What the operator (and the tests) can make happen at gateway_a's sandbox:
 * the customer pays, declines or lets a payment expire, a subscription
 * renews or fails its charge. Each changes the state and notifies, as the
 * real gateway would.
 */
import type { CardSummary } from '../../gateways/adapter';
import type { SimulatorActions } from '../simulator/control';
import { addInterval, DEFAULT_CARD, newId, requireOpen } from '../simulator/fixtures';
import { SimControlError } from '../simulator/server';
import { mapStatus } from '../../gateways/status-table';
import { devolucaoStatusTable, refundStatusTable } from '../../gateways/gateway_a/status-map';
import { now, OPEN_PAYMENT, OPEN_SUBSCRIPTION, publicSubscription, type GatewayAState } from './state';

/** Why the sandbox's failed refunds failed, as gateway_a words it. */
const FAILURE_REASON = { refund: 'The card issuer could not return the money.', pix_devolucao: "The payer's account could not receive the devolução." } as const;

export function actionsOf(state: GatewayAState): SimulatorActions {
  return {
    payPayment(ref, card?: CardSummary, paidAt = new Date()) {
      const p = state.payment(ref);
      requireOpen(p.status, OPEN_PAYMENT, 'payment');
      state.setPayment(p, { status: 'succeeded', card: p.method === 'card' ? { ...(card ?? DEFAULT_CARD) } : null, paid_at: Math.floor(paidAt.getTime() / 1000) });
    },
    declinePayment(ref) {
      const p = state.payment(ref);
      requireOpen(p.status, OPEN_PAYMENT, 'payment');
      state.setPayment(p, { status: 'payment_failed' });
    },
    expirePayment(ref) {
      const p = state.payment(ref);
      requireOpen(p.status, OPEN_PAYMENT, 'payment');
      state.setPayment(p, { status: 'expired' });
    },
    setPaymentStatus(ref, rawStatus) {
      state.setPayment(state.payment(ref), { status: rawStatus });
    },
    completeCheckout(ref) {
      const s = state.subscription(ref);
      requireOpen(s.status, OPEN_SUBSCRIPTION, 'subscription');
      s.checkout_completed = true;
      return { subscriptionRef: s.id };
    },
    raceNextDeactivation(ref) {
      state.subscription(ref);
      throw new SimControlError(409, 'gateway_a subscriptions have no checkout link to deactivate');
    },
    renewSubscription(ref) {
      const s = state.subscription(ref);
      requireOpen(s.status, OPEN_SUBSCRIPTION, 'subscription');
      const charge = state.newCharge(s, 'succeeded');
      const periodEnd = addInterval(new Date((s.current_period_end ?? now()) * 1000), s.interval === 'month' ? 'monthly' : 'yearly');
      state.setSubscription(s, { status: 'active', current_period_end: Math.floor(periodEnd.getTime() / 1000) });
      state.emit('invoice.paid', { id: newId('in_'), object: 'invoice', subscription: s.id, status: 'paid', period_end: s.current_period_end, payment: charge });
      return { paymentRef: charge.id };
    },
    failSubscriptionCharge(ref) {
      const s = state.subscription(ref);
      requireOpen(s.status, OPEN_SUBSCRIPTION, 'subscription');
      const charge = state.newCharge(s, 'payment_failed');
      state.emit('invoice.payment_failed', { id: newId('in_'), object: 'invoice', subscription: s.id, status: 'open', period_end: s.current_period_end, payment: charge });
      return { paymentRef: charge.id };
    },
    markPastDue(ref) {
      const s = state.subscription(ref);
      requireOpen(s.status, OPEN_SUBSCRIPTION, 'subscription');
      state.setSubscription(s, { status: 'past_due' });
    },
    endTrial(ref) {
      const s = state.subscription(ref);
      if (s.status !== 'trialing') throw new SimControlError(409, `subscription is ${s.status}`);
      state.setSubscription(s, { status: 'active', trial_end: now() });
    },
    setSubscriptionStatus(ref, rawStatus) {
      const s = state.subscription(ref);
      Object.assign(s, { status: rawStatus });
      state.emit('subscription.updated', publicSubscription(s));
    },
    settleRefund(ref) {
      state.moveRefund(state.refunds.pending(ref), 'succeeded');
    },
    failRefund(ref, reason) {
      const refund = state.refunds.pending(ref);
      state.moveRefund(refund, 'failed', reason ?? FAILURE_REASON[refund.wire.object]);
    },
    setRefundStatus(ref, rawStatus) {
      const refund = state.refunds.named(ref);
      const mapped = mapStatus(refund.wire.object === 'refund' ? refundStatusTable : devolucaoStatusTable, rawStatus);
      if (mapped.known) refund.state = mapped.status;
      state.setRefundWire(refund, rawStatus);
    },
    setRefundSettlement(mode) {
      state.refunds.settlement = mode;
    },
  };
}
