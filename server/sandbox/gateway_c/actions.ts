/**
 * What the operator (and the tests) can make happen at gateway_c's sandbox:
 * the customer pays, declines or abandons a checkout link, a subscription
 * renews, fails its charge or ends its trial, a deactivation races a
 * checkout. Each changes the state and notifies, as the real gateway would.
 */
import type { SimulatorActions } from '../simulator/control';
import { addDays, addInterval, DEFAULT_CARD, found, newId, requireOpen } from '../simulator/fixtures';
import { SimControlError } from '../simulator/server';
import type { WireCharge, WireSubscription } from '../../gateways/gateway_c/wire';
import { mapStatus } from '../../gateways/status-table';
import { refundStatusTable } from '../../gateways/gateway_c/status-map';
import { OPEN_LINK, OPEN_SUBSCRIPTION, type GatewayCState } from './state';

export function actionsOf(state: GatewayCState): SimulatorActions {
  return {
    payPayment(ref, card, paidAt = new Date()) {
      const link = state.singleLink(ref);
      requireOpen(link.status, OPEN_LINK, 'checkout link');
      const paidWith = card ?? DEFAULT_CARD;
      const paid: WireCharge = {
        id: newId('ch_'),
        status: 'paid',
        amount_cents: link.amount_cents,
        subscription_id: null,
        card: { brand: paidWith.brand, last_four: paidWith.last4 },
        paid_at: paidAt.toISOString(),
        created_at: new Date().toISOString(),
      };
      state.charges.set(paid.id, paid);
      state.setLink(link, { status: 'paid', charge: paid });
    },
    declinePayment(ref) {
      const link = state.singleLink(ref);
      requireOpen(link.status, OPEN_LINK, 'checkout link');
      state.setLink(link, { status: 'declined' });
    },
    expirePayment(ref) {
      const link = found(state.links, ref, 'checkout link');
      if (link.status !== 'open') throw new SimControlError(409, `checkout link is ${link.status}`);
      state.setLink(link, { status: 'expired' });
    },
    setPaymentStatus(ref, rawStatus) {
      const record = state.charges.get(ref);
      if (record) {
        record.status = rawStatus;
        return;
      }
      state.setLink(state.singleLink(ref), { status: rawStatus });
    },
    completeCheckout(ref, options = {}) {
      const link = found(state.links, ref, 'checkout link');
      const completable = link.status === 'open' || (options.racingDeactivation === true && link.status === 'deactivated');
      if (link.type !== 'subscription' || !completable || !link.plan) {
        throw new SimControlError(409, `checkout link ${ref} cannot be completed`);
      }
      const now = new Date();
      const trialEnd = link.plan.trial_days > 0 ? addDays(now, link.plan.trial_days) : null;
      const subscription: WireSubscription = {
        id: newId('sub_'),
        status: trialEnd ? 'trialing' : 'active',
        plan_id: link.plan.id,
        checkout_link_id: link.id,
        current_period_end: (trialEnd ?? addInterval(now, link.plan.interval)).toISOString(),
        trial_ends_at: trialEnd ? trialEnd.toISOString() : null,
        canceled_at: null,
        created_at: now.toISOString(),
      };
      state.subscriptions.set(subscription.id, subscription);
      Object.assign(link, { status: 'completed', subscription_id: subscription.id });
      state.emit('subscription.created', { checkout_link_id: link.id, subscription });
      return { subscriptionRef: subscription.id };
    },
    raceNextDeactivation(ref) {
      const link = found(state.links, ref, 'checkout link');
      if (link.type !== 'subscription' || link.status !== 'open') throw new SimControlError(409, `checkout link ${ref} is not an open subscription link`);
      state.racingLinks.add(link.id);
    },
    renewSubscription(ref) {
      const subscription = state.subscriptionFor(ref);
      requireOpen(subscription.status, OPEN_SUBSCRIPTION, 'subscription');
      const record = state.charge(subscription, 'paid');
      const before = subscription.status;
      const from = subscription.current_period_end ? new Date(subscription.current_period_end) : new Date();
      Object.assign(subscription, { status: 'active', current_period_end: addInterval(from, state.planOf(subscription).interval).toISOString() });
      state.emit('charge.paid', { charge: record, subscription });
      if (before !== 'active') state.emit('subscription.updated', { subscription });
      return { paymentRef: record.id };
    },
    failSubscriptionCharge(ref) {
      const subscription = state.subscriptionFor(ref);
      requireOpen(subscription.status, OPEN_SUBSCRIPTION, 'subscription');
      const record = state.charge(subscription, 'failed');
      state.emit('charge.failed', { charge: record, subscription });
      return { paymentRef: record.id };
    },
    markPastDue(ref) {
      const subscription = state.subscriptionFor(ref);
      requireOpen(subscription.status, OPEN_SUBSCRIPTION, 'subscription');
      state.setSubscription(subscription, { status: 'past_due' });
    },
    endTrial(ref) {
      const subscription = state.subscriptionFor(ref);
      if (subscription.status !== 'trialing') throw new SimControlError(409, `subscription is ${subscription.status}`);
      state.setSubscription(subscription, { status: 'active', trial_ends_at: new Date().toISOString() });
    },
    setSubscriptionStatus(ref, rawStatus) {
      state.setSubscription(state.subscriptionFor(ref), { status: rawStatus });
    },
    settleRefund(ref) {
      state.moveRefund(state.refunds.pending(ref), 'succeeded');
    },
    failRefund(ref, reason) {
      state.moveRefund(state.refunds.pending(ref), 'failed', reason ?? 'The card issuer could not return the money.');
    },
    setRefundStatus(ref, rawStatus) {
      const refund = state.refunds.named(ref);
      const mapped = mapStatus(refundStatusTable, rawStatus);
      if (mapped.known) refund.state = mapped.status;
      state.setRefundWire(refund, rawStatus);
    },
    setRefundSettlement(mode) {
      state.refunds.settlement = mode;
    },
  };
}
