/**
 * The subscription aggregate: its table and its state machine, in one place.
 * `canceled` is final; a trial ends into `active`; `past_due` can come from
 * anywhere live (with or without a failed charge before it) and recovers to
 * `active`. Like Payment, every change goes through methods that return the
 * events it causes, which the caller writes in the same transaction.
 */
import { defineEntity, p, type Opt } from '@mikro-orm/core';
import { TEXT_LIMITS } from '../../contract/limits';
import { SUBSCRIPTION_INTERVALS, SUBSCRIPTION_STATUSES, type SubscriptionStatus } from '../../contract/enums';
import type { SubscriptionSnapshot } from '../../gateways/adapter';
import type { DomainEvent, SubscriptionEventType } from '../events';
import { newId } from '../../contract/ids';
import { registrationColumns } from '../registration/columns';

export const SubscriptionSchema = defineEntity({
  name: 'Subscription',
  tableName: 'subscriptions',
  uniques: [{ properties: ['environment', 'externalId'] }],
  // The dashboard's list: newest first within an environment (keyset on createdAt, id).
  indexes: [
    { properties: ['gateway', 'gatewayRef'] },
    { properties: ['environment', 'createdAt', 'id'] },
    // Background reconciliation reads what is due; only unfinished rows carry a time, so the index stays small.
    { name: 'subscriptions_reconcile_due_index', expression: 'create index "subscriptions_reconcile_due_index" on "subscriptions" ("reconcile_at") where "reconcile_at" is not null' },
  ],
  properties: {
    id: p.string().primary().onCreate(() => newId('sub')),
    // gateway_c: gatewayRef is the `pl_` checkout link until the customer completes checkout, then the `sub_` subscription.
    ...registrationColumns,
    interval: p.enum(SUBSCRIPTION_INTERVALS),
    trialDays: p.integer().default(0),
    status: p.enum(SUBSCRIPTION_STATUSES),
    trialEndsAt: p.datetime().nullable(),
    nextBillingAt: p.datetime().nullable(),
    cancelAtPeriodEnd: p.boolean().default(false),
    canceledAt: p.datetime().nullable(),
    planId: p.string().length(TEXT_LIMITS.planId).nullable(),
    /** Whether `subscription.created` was recorded (on gateway_c only once checkout completes). */
    createdEventRecorded: p.boolean().default(false),
  },
});

/** The moves a status may make; anything else the gateway reports is ignored. */
const ALLOWED: Record<SubscriptionStatus, readonly SubscriptionStatus[]> = {
  trialing: ['active', 'past_due', 'canceled'],
  active: ['past_due', 'canceled'],
  past_due: ['active', 'canceled'],
  canceled: [],
};

/** The event a status records when a subscription reaches it. */
const EVENT_OF: Record<SubscriptionStatus, SubscriptionEventType | null> = {
  trialing: null,
  // Leaving a trial or recovering from past_due has no event of its own; renewals are reported by charges.
  active: null,
  past_due: 'subscription.past_due',
  canceled: 'subscription.canceled',
};

export function nextSubscriptionStatus(current: SubscriptionStatus, reported: SubscriptionStatus, reportedIsKnown = true): SubscriptionStatus | null {
  if (!reportedIsKnown || reported === current) return null;
  return ALLOWED[current].includes(reported) ? reported : null;
}

export const subscriptionEventType = (status: SubscriptionStatus): SubscriptionEventType | null => EVENT_OF[status];

/** A subscription starts `trialing` when it has trial days, else `active`. */
export const initialSubscriptionStatus = (trialDays: number): SubscriptionStatus => (trialDays > 0 ? 'trialing' : 'active');

const dateOrNull = (value: string | null): Date | null => (value ? new Date(value) : null);

export class Subscription extends SubscriptionSchema.class {
  get isRegistered(): Opt<boolean> {
    return this.gatewayRef != null;
  }

  /** gateway_c: registered as a checkout link whose customer has not completed checkout yet (no subscription, no period). */
  get awaitingCheckout(): Opt<boolean> {
    return this.gateway === 'gateway_c' && this.gatewayRef != null && this.gatewayRef.startsWith('pl_');
  }

  /** The `data` of a subscription event, as of now (an event carries the state of its transition, never re-read). */
  eventData(): Record<string, unknown> {
    return {
      subscriptionId: this.id,
      externalId: this.externalId,
      status: this.status,
      method: 'card',
      provider: this.gateway,
      amount: this.amount,
      currency: this.currency,
      interval: this.interval,
      gatewayRef: this.gatewayRef ?? null,
      nextBillingAt: this.nextBillingAt?.toISOString() ?? null,
      trialEndsAt: this.trialEndsAt?.toISOString() ?? null,
      cancelAtPeriodEnd: this.cancelAtPeriodEnd,
      canceledAt: this.canceledAt?.toISOString() ?? null,
    };
  }

  private event(type: SubscriptionEventType): DomainEvent {
    return { type, resourceId: this.id, environmentId: this.environment.id, data: this.eventData() };
  }

  private takeDetails(snapshot: SubscriptionSnapshot): void {
    if (snapshot.checkoutUrl) this.checkoutUrl = snapshot.checkoutUrl;
    if (snapshot.nextBillingAt) this.nextBillingAt = new Date(snapshot.nextBillingAt);
    if (snapshot.trialEndsAt) this.trialEndsAt = new Date(snapshot.trialEndsAt);
    this.gatewayStatus = snapshot.rawStatus.slice(0, 64);
  }

  /** Moves to `next` when the transition table allows it, with the event of the new status. */
  private moveTo(next: SubscriptionStatus, canceledAt: string | null = null): DomainEvent[] {
    if (!nextSubscriptionStatus(this.status as SubscriptionStatus, next)) return [];
    this.status = next;
    if (next === 'canceled') this.canceledAt = dateOrNull(canceledAt) ?? new Date();
    const type = subscriptionEventType(next);
    return type ? [this.event(type)] : [];
  }

  /** The gateway accepted the create. `subscription.created` waits for a real subscription (gateway_c checkout). */
  registerAtGateway(snapshot: SubscriptionSnapshot): DomainEvent[] {
    this.gatewayRef = snapshot.gatewayRef;
    this.takeDetails(snapshot);
    return this.awaitingCheckout ? [] : this.recordCreated();
  }

  /**
   * gateway_c: the checkout link became a subscription. A subscription
   * already canceled here stays canceled and announces nothing (the gateway
   * subscription that appeared is canceled there by the caller); it keeps the
   * new reference so later notifications about it are recognized.
   */
  completeCheckout(snapshot: SubscriptionSnapshot): DomainEvent[] {
    this.gatewayRef = snapshot.gatewayRef;
    if (this.status === 'canceled') return [];
    this.takeDetails(snapshot);
    return [...this.recordCreated(), ...this.applyGatewaySnapshot(snapshot)];
  }

  private recordCreated(): DomainEvent[] {
    if (this.createdEventRecorded) return [];
    this.createdEventRecorded = true;
    return [this.event('subscription.created')];
  }

  /** Applies the gateway's view: cancel-at-period-end, dates, and a status the transition table allows. */
  applyGatewaySnapshot(snapshot: SubscriptionSnapshot): DomainEvent[] {
    if (this.status === 'canceled') return [];
    this.takeDetails(snapshot);
    if (snapshot.cancelAtPeriodEnd) this.cancelAtPeriodEnd = true;
    if (!snapshot.statusKnown) return [];
    return this.moveTo(snapshot.status, snapshot.canceledAt);
  }

  /** A recurring charge was paid: the period moves on and a trialing or past-due subscription becomes active. */
  chargePaid(nextBillingAt: string | null): DomainEvent[] {
    if (this.status === 'canceled') return [];
    if (nextBillingAt) this.nextBillingAt = new Date(nextBillingAt);
    // Becoming active records no event of its own (EVENT_OF): the renewal is the event.
    return [...this.moveTo('active'), this.event('subscription.renewed')];
  }

  /** A charge attempt failed; the gateway may still retry before declaring past_due. */
  chargeFailed(): DomainEvent[] {
    if (this.status === 'canceled') return [];
    return [this.event('subscription.payment_failed')];
  }
}
SubscriptionSchema.setClass(Subscription);
