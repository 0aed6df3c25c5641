/** The subscription transition table and the data of its events. */
import { describe, expect, it } from 'vitest';
import { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from '../../server/contract/enums';
import { Subscription } from '../../server/domain/subscriptions/subscription';
import type { SubscriptionSnapshot } from '../../server/gateways';

const ALLOWED: Record<SubscriptionStatus, SubscriptionStatus[]> = {
  trialing: ['active', 'past_due', 'canceled'],
  active: ['past_due', 'canceled'],
  past_due: ['active', 'canceled'],
  canceled: [],
};
const EVENT: Partial<Record<SubscriptionStatus, string>> = { past_due: 'subscription.past_due', canceled: 'subscription.canceled' };

function subscriptionIn(status: SubscriptionStatus, gateway = 'gateway_b', gatewayRef: string | null = 'sub_ref'): Subscription {
  const subscription = new Subscription();
  Object.assign(subscription, {
    id: 'sub_000000000000000000000001',
    environment: { id: 'env_000000000000000000000001' },
    externalId: 'plan-1',
    gateway,
    amount: 4990,
    currency: 'BRL',
    interval: 'monthly',
    trialDays: 0,
    status,
    cancelAtPeriodEnd: false,
    gatewayRef,
    createdEventRecorded: false,
  });
  return subscription;
}

const snapshot = (status: SubscriptionStatus, extra: Partial<SubscriptionSnapshot> = {}): SubscriptionSnapshot => ({
  gatewayRef: 'sub_ref',
  status,
  rawStatus: status,
  statusKnown: true,
  checkoutUrl: null,
  nextBillingAt: '2027-01-01T00:00:00.000Z',
  trialEndsAt: null,
  cancelAtPeriodEnd: false,
  canceledAt: status === 'canceled' ? '2026-12-01T00:00:00.000Z' : null,
  ...extra,
});

const cases = SUBSCRIPTION_STATUSES.flatMap((from) => SUBSCRIPTION_STATUSES.map((to) => [from, to] as const));

describe('subscription transitions', () => {
  it.each(cases)('%s → reported %s', (from, to) => {
    const subscription = subscriptionIn(from);
    const events = subscription.applyGatewaySnapshot(snapshot(to));
    const moves = ALLOWED[from].includes(to);
    expect(subscription.status).toBe(moves ? to : from);
    expect(events.map((e) => e.type)).toEqual(moves && EVENT[to] ? [EVENT[to]] : []);
    if (moves && to === 'canceled') expect(subscription.canceledAt?.toISOString()).toBe('2026-12-01T00:00:00.000Z');
  });

  it('event data carries the contract\'s fields as of the transition', () => {
    const subscription = subscriptionIn('active');
    const [event] = subscription.applyGatewaySnapshot(snapshot('canceled'));
    expect(event!.data).toEqual({
      subscriptionId: subscription.id,
      externalId: 'plan-1',
      status: 'canceled',
      method: 'card',
      provider: 'gateway_b',
      amount: 4990,
      currency: 'BRL',
      interval: 'monthly',
      gatewayRef: 'sub_ref',
      nextBillingAt: '2027-01-01T00:00:00.000Z',
      trialEndsAt: null,
      cancelAtPeriodEnd: false,
      canceledAt: '2026-12-01T00:00:00.000Z',
    });
  });

  it('gateway_c records subscription.created only when the checkout link becomes a subscription, once', () => {
    const subscription = subscriptionIn('active', 'gateway_c', null);
    expect(subscription.registerAtGateway(snapshot('active', { gatewayRef: 'pl_link' }))).toEqual([]);
    const completed = subscription.completeCheckout(snapshot('active', { gatewayRef: 'sub_real' }));
    expect(completed.map((e) => [e.type, e.data.gatewayRef])).toEqual([['subscription.created', 'sub_real']]);
    expect(subscription.completeCheckout(snapshot('active', { gatewayRef: 'sub_real' }))).toEqual([]);
  });

  it('a paid charge renews and recovers a past-due subscription; a failed one reports without moving it', () => {
    const subscription = subscriptionIn('past_due');
    expect(subscription.chargeFailed().map((e) => e.type)).toEqual(['subscription.payment_failed']);
    expect(subscription.status).toBe('past_due');
    const renewed = subscription.chargePaid('2027-02-01T00:00:00.000Z');
    expect(renewed.map((e) => [e.type, e.data.status, e.data.nextBillingAt])).toEqual([['subscription.renewed', 'active', '2027-02-01T00:00:00.000Z']]);
    const ended = subscriptionIn('canceled');
    expect([...ended.chargePaid(null), ...ended.chargeFailed()]).toEqual([]);
  });
});
