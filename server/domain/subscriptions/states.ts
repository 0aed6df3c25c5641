/**
 * The subscription state machine: `canceled` is final; a trial ends into
 * `active`; `past_due` can come from anywhere live (with or without a failed
 * charge before it) and recovers to `active`. The `Subscription` entity
 * applies it.
 */
import type { SubscriptionStatus } from '../../contract/enums';

const ALLOWED: Record<SubscriptionStatus, readonly SubscriptionStatus[]> = {
  trialing: ['active', 'past_due', 'canceled'],
  active: ['past_due', 'canceled'],
  past_due: ['active', 'canceled'],
  canceled: [],
};

export function nextSubscriptionStatus(current: SubscriptionStatus, reported: SubscriptionStatus, reportedIsKnown = true): SubscriptionStatus | null {
  if (!reportedIsKnown || reported === current) return null;
  return ALLOWED[current].includes(reported) ? reported : null;
}

const EVENT_OF: Record<SubscriptionStatus, string | null> = {
  trialing: null,
  // Leaving a trial or recovering from past_due has no event of its own; renewals are reported by charges.
  active: null,
  past_due: 'subscription.past_due',
  canceled: 'subscription.canceled',
};

export const subscriptionEventType = (status: SubscriptionStatus): string | null => EVENT_OF[status];

/** A subscription starts `trialing` when it has trial days, else `active`. */
export const initialSubscriptionStatus = (trialDays: number): SubscriptionStatus => (trialDays > 0 ? 'trialing' : 'active');
