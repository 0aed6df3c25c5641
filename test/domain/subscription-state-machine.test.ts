/** The subscription transition table (forward-only without an order, any direction for the gateway's present truth) and the data of its events. */
import { describe, expect, it } from 'vitest';
import { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from '../../server/contract/enums';
import { gatewayNotification, gatewayRead } from '../../server/domain/report-order';
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

/** A webhook of a protocol without event times: only the transition table orders it. */
const untimed = gatewayNotification(null);

const cases = SUBSCRIPTION_STATUSES.flatMap((from) => SUBSCRIPTION_STATUSES.map((to) => [from, to] as const));

describe('subscription transitions', () => {
  it.each(cases)('%s → reported %s', (from, to) => {
    const subscription = subscriptionIn(from);
    const events = subscription.applyGatewaySnapshot(snapshot(to), untimed);
    const moves = ALLOWED[from].includes(to);
    expect(subscription.status).toBe(moves ? to : from);
    expect(events.map((e) => e.type)).toEqual(moves && EVENT[to] ? [EVENT[to]] : []);
    if (moves && to === 'canceled') expect(subscription.canceledAt?.toISOString()).toBe('2026-12-01T00:00:00.000Z');
  });

  it.each(cases)('a read of the gateway (decision 17): %s → reported %s', (from, to) => {
    const subscription = subscriptionIn(from);
    const events = subscription.applyGatewaySnapshot(snapshot(to), gatewayRead(new Date('2026-12-01T10:00:00.000Z')));
    // Any direction among the non-final statuses (active back to trialing); canceled never moves.
    const moves = from !== 'canceled' && to !== from;
    expect(subscription.status).toBe(moves ? to : from);
    expect(events.map((e) => e.type)).toEqual(moves && EVENT[to] ? [EVENT[to]] : []);
  });

  it('event data carries the contract\'s fields as of the transition', () => {
    const subscription = subscriptionIn('active');
    const [event] = subscription.applyGatewaySnapshot(snapshot('canceled'), untimed);
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
      // Nothing is billed after a cancel took effect, whatever date the gateway last gave.
      nextBillingAt: null,
      trialEndsAt: null,
      cancelAtPeriodEnd: false,
      canceledAt: '2026-12-01T00:00:00.000Z',
    });
    expect(subscription.nextBillingAt).toBeNull();
  });

  it('gateway_c records subscription.created only when the checkout link becomes a subscription, once', () => {
    const subscription = subscriptionIn('active', 'gateway_c', null);
    expect(subscription.registerAtGateway(snapshot('active', { gatewayRef: 'pl_link' }))).toEqual([]);
    const completed = subscription.completeCheckout(snapshot('active', { gatewayRef: 'sub_real' }), untimed);
    expect(completed.map((e) => [e.type, e.data.gatewayRef])).toEqual([['subscription.created', 'sub_real']]);
    expect(subscription.completeCheckout(snapshot('active', { gatewayRef: 'sub_real' }), untimed)).toEqual([]);
  });

  it('subscription.created carries the status the gateway confirmed, and nothing moves silently with it', () => {
    const toldTrial = subscriptionIn('trialing', 'gateway_c', null);
    toldTrial.registerAtGateway(snapshot('active', { gatewayRef: 'pl_link' }));
    const confirmed = toldTrial.completeCheckout(snapshot('active', { gatewayRef: 'sub_real' }), gatewayNotification('2026-12-01T00:00:00.000Z'));
    expect(confirmed.map((e) => [e.type, e.data.status])).toEqual([['subscription.created', 'active']]);
    expect(toldTrial.status).toBe('active');

    const elsewhere = subscriptionIn('active', 'gateway_a', null);
    const created = elsewhere.registerAtGateway(snapshot('trialing', { trialEndsAt: '2026-12-15T00:00:00.000Z' }));
    expect(created.map((e) => [e.type, e.data.status, e.data.trialEndsAt])).toEqual([['subscription.created', 'trialing', '2026-12-15T00:00:00.000Z']]);
  });

  it('a webhook older than the newest report applied moves nothing; a newer one or a read does', () => {
    const subscription = subscriptionIn('active');
    subscription.createdEventRecorded = true;
    const read = subscription.applyGatewaySnapshot(snapshot('past_due'), gatewayRead(new Date('2026-12-01T10:00:00.000Z')));
    expect(read.map((e) => e.type)).toEqual(['subscription.past_due']);
    expect(subscription.gatewaySeenAt?.toISOString()).toBe('2026-12-01T10:00:00.000Z');

    // Sent before the read (the recovery it reports was already undone when the gateway was read).
    expect(subscription.applyGatewaySnapshot(snapshot('active'), gatewayNotification('2026-12-01T09:59:57.000Z'))).toEqual([]);
    expect(subscription.status).toBe('past_due');
    expect(subscription.chargePaid('2027-03-01T00:00:00.000Z', gatewayNotification('2026-12-01T09:59:50.000Z')).map((e) => e.type)).toEqual(['subscription.renewed']);
    expect(subscription.status).toBe('past_due');
    expect(subscription.nextBillingAt?.toISOString()).toBe('2027-01-01T00:00:00.000Z');

    // Before the read by a clock to the millisecond: stale, even by half a second.
    expect(subscription.applyGatewaySnapshot(snapshot('active'), gatewayNotification('2026-12-01T09:59:59.500Z'))).toEqual([]);
    expect(subscription.status).toBe('past_due');
    // By a clock of whole seconds, the read's own second is not older: applied, backward too.
    subscription.applyGatewaySnapshot(snapshot('trialing'), gatewayNotification('2026-12-01T10:00:00.000Z', 1_000));
    expect(subscription.status).toBe('trialing');
    subscription.applyGatewaySnapshot(snapshot('active'), gatewayNotification('2026-12-01T09:59:59.000Z', 1_000));
    expect(subscription.status).toBe('trialing');
    subscription.applyGatewaySnapshot(snapshot('active'), gatewayNotification('2026-12-01T10:00:00.000Z', 1_000));
    expect(subscription.status).toBe('active');

    // Newer than everything applied: the gateway's truth, and the new mark.
    subscription.applyGatewaySnapshot(snapshot('past_due'), gatewayNotification('2026-12-01T10:05:00.000Z'));
    expect(subscription.status).toBe('past_due');
    expect(subscription.gatewaySeenAt?.toISOString()).toBe('2026-12-01T10:05:00.000Z');

    // A read is never stale, though canceled stays final.
    subscription.applyGatewaySnapshot(snapshot('canceled'), gatewayRead(new Date('2026-12-01T10:01:00.000Z')));
    expect(subscription.status).toBe('canceled');
    expect(subscription.applyGatewaySnapshot(snapshot('active'), gatewayRead(new Date('2026-12-01T11:00:00.000Z')))).toEqual([]);
    expect(subscription.status).toBe('canceled');
  });

  it('a read that answers under another reference completes the checkout; one made before the reference changed is dropped', () => {
    const subscription = subscriptionIn('active', 'gateway_c', 'pl_link');
    const completed = subscription.applyGatewayRead('pl_link', snapshot('active', { gatewayRef: 'sub_real' }), new Date('2026-12-01T10:00:00.000Z'));
    expect(completed.map((e) => [e.type, e.data.gatewayRef])).toEqual([['subscription.created', 'sub_real']]);
    expect(subscription.applyGatewayRead('pl_link', snapshot('canceled', { gatewayRef: 'pl_link' }), new Date('2026-12-01T10:00:01.000Z'))).toEqual([]);
    expect(subscription).toMatchObject({ status: 'active', gatewayRef: 'sub_real' });
  });

  it('a paid charge renews and recovers a past-due subscription; a failed one reports without moving it', () => {
    const subscription = subscriptionIn('past_due');
    expect(subscription.chargeFailed().map((e) => e.type)).toEqual(['subscription.payment_failed']);
    expect(subscription.status).toBe('past_due');
    const renewed = subscription.chargePaid('2027-02-01T00:00:00.000Z', untimed);
    expect(renewed.map((e) => [e.type, e.data.status, e.data.nextBillingAt])).toEqual([['subscription.renewed', 'active', '2027-02-01T00:00:00.000Z']]);
    const ended = subscriptionIn('canceled');
    expect([...ended.chargePaid(null, untimed), ...ended.chargeFailed()]).toEqual([]);
  });
});
