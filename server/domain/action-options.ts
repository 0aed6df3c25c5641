/**
 * What can be done to a payment or subscription now, and why not, for the
 * dashboard to offer only what the API would accept and to say why the rest
 * is not possible. The same checks as the use cases (payments/cancel.ts,
 * subscriptions/cancel.ts), in the same order, with the API's own messages;
 * the use cases still decide when the action is taken.
 */
import { gatewayCapabilities } from '../gateways';
import { assertCancelable, type Payment } from './payments/payment';
import { Refusal } from './refusal';
import type { Subscription } from './subscriptions/subscription';

export interface ActionOption {
  allowed: boolean;
  /** Why not, in the API's words; null when allowed. */
  reason: string | null;
}

const allowed: ActionOption = { allowed: true, reason: null };
const refused = (reason: string): ActionOption => ({ allowed: false, reason });

function byRule(check: () => void): ActionOption | null {
  try {
    check();
    return null;
  } catch (error) {
    if (error instanceof Refusal) return refused(error.message);
    throw error;
  }
}

export function paymentActionOptions(payment: Payment) {
  const cancel =
    byRule(() => assertCancelable(payment)) ??
    (gatewayCapabilities[payment.gateway].paymentCancel ? allowed : refused(`${payment.gateway} cannot cancel a payment; it ends by itself at the gateway (expired or failed).`));
  const sync = payment.gatewayRef ? allowed : refused('The payment has not been registered at its gateway yet; there is nothing to read.');
  return { cancel, sync };
}

export function subscriptionActionOptions(subscription: Subscription) {
  const ended = subscription.status === 'canceled' ? refused('The subscription is already canceled.') : null;
  const unregistered = subscription.gatewayRef ? null : refused('The subscription is not registered at its gateway yet.');
  const atPeriodEnd =
    ended ??
    (subscription.awaitingCheckout
      ? refused('The customer has not completed checkout, so there is no period to end; cancel now instead.')
      : !gatewayCapabilities[subscription.gateway].subscriptionCancelAtPeriodEnd
        ? refused(`${subscription.gateway} only cancels immediately.`)
        : subscription.cancelAtPeriodEnd
          ? refused('It already ends at the end of its period.')
          : unregistered) ??
    allowed;
  return {
    cancelNow: ended ?? unregistered ?? allowed,
    cancelAtPeriodEnd: atPeriodEnd,
    sync: unregistered ?? allowed,
  };
}
