import type { z } from 'zod';
import type { Subscription as SubscriptionSchema } from '../../contract/schemas/subscription';
import type { Subscription } from './subscription';

/** The Subscription body of the contract: every field present, null where empty. */
export function subscriptionBody(subscription: Subscription): z.infer<typeof SubscriptionSchema> {
  const hasCustomer = subscription.customerName != null || subscription.customerEmail != null || subscription.customerDocumentLast4 != null;
  return {
    id: subscription.id,
    status: subscription.status,
    method: 'card',
    gateway: subscription.gateway,
    amount: subscription.amount,
    currency: 'BRL',
    interval: subscription.interval,
    trialDays: subscription.trialDays,
    trialEndsAt: subscription.trialEndsAt?.toISOString() ?? null,
    // The aggregate clears it when a cancel takes effect; rows canceled before it did may still hold a date.
    nextBillingAt: subscription.status === 'canceled' ? null : (subscription.nextBillingAt?.toISOString() ?? null),
    cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
    canceledAt: subscription.canceledAt?.toISOString() ?? null,
    externalId: subscription.externalId,
    gatewayRef: subscription.gatewayRef ?? null,
    checkoutUrl: subscription.checkoutUrl ?? null,
    customer: hasCustomer
      ? { name: subscription.customerName ?? null, email: subscription.customerEmail ?? null, documentLast4: subscription.customerDocumentLast4 ?? null }
      : null,
    createdAt: subscription.createdAt.toISOString(),
    updatedAt: subscription.updatedAt.toISOString(),
  };
}
