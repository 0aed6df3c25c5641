import { defineEntity, p, type Opt } from '@mikro-orm/core';
import { TEXT_LIMITS } from '../../contract/limits';
import { GATEWAY_NAMES, SUBSCRIPTION_INTERVALS, SUBSCRIPTION_STATUSES, type SubscriptionStatus } from '../../contract/enums';
import type { DomainEvent } from '../../domain/events';
import { newId } from '../../domain/ids';
import { nextSubscriptionStatus, subscriptionEventType } from '../../domain/subscriptions/states';
import type { SubscriptionSnapshot } from '../../gateways/adapter';
import { Environment } from './environment';

/**
 * A recurring card charge and its state machine. Like Payment, every change
 * goes through methods that return the events it causes, which the caller
 * writes in the same flush.
 */
export const SubscriptionSchema = defineEntity({
  name: 'Subscription',
  tableName: 'subscriptions',
  uniques: [{ properties: ['environment', 'externalId'] }],
  // The dashboard's list: newest first within an environment (keyset on createdAt, id).
  indexes: [{ properties: ['gateway', 'gatewayRef'] }, { properties: ['environment', 'createdAt', 'id'] }],
  properties: {
    id: p.string().primary().onCreate(() => newId('sub')),
    environment: () => p.manyToOne(Environment),
    externalId: p.string().length(TEXT_LIMITS.externalId),
    gateway: p.enum(GATEWAY_NAMES),
    amount: p.bigint('number'),
    currency: p.string().length(3).default('BRL'),
    interval: p.enum(SUBSCRIPTION_INTERVALS),
    trialDays: p.integer().default(0),
    status: p.enum(SUBSCRIPTION_STATUSES),
    trialEndsAt: p.datetime().nullable(),
    nextBillingAt: p.datetime().nullable(),
    cancelAtPeriodEnd: p.boolean().default(false),
    canceledAt: p.datetime().nullable(),
    /** gateway_c: the `pl_` checkout link until the customer completes checkout, then the `sub_` subscription. */
    gatewayRef: p.string().length(255).nullable(),
    checkoutUrl: p.text().nullable(),
    planId: p.string().length(TEXT_LIMITS.planId).nullable(),
    customerName: p.string().length(TEXT_LIMITS.customerName).nullable(),
    customerEmail: p.string().length(TEXT_LIMITS.customerEmail).nullable(),
    customerDocumentLast4: p.string().length(4).nullable(),
    metadata: p.json<Record<string, unknown>>().nullable(),
    gatewayStatus: p.string().length(64).nullable(),
    /** Whether `subscription.created` was recorded (on gateway_c only once checkout completes). */
    createdEventRecorded: p.boolean().default(false),
    requestHash: p.string().length(64),
    pendingRequestSealed: p.text().nullable(),
    registrationLeaseUntil: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

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

  private event(type: string): DomainEvent {
    return { type, resourceId: this.id, environmentId: this.environment.id, data: this.eventData() };
  }

  private takeDetails(snapshot: SubscriptionSnapshot): void {
    if (snapshot.checkoutUrl) this.checkoutUrl = snapshot.checkoutUrl;
    if (snapshot.nextBillingAt) this.nextBillingAt = new Date(snapshot.nextBillingAt);
    if (snapshot.trialEndsAt) this.trialEndsAt = new Date(snapshot.trialEndsAt);
    this.gatewayStatus = snapshot.rawStatus.slice(0, 64);
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

  /** Applies the gateway's view: cancel-at-period-end, dates, and a forward-only status. */
  applyGatewaySnapshot(snapshot: SubscriptionSnapshot): DomainEvent[] {
    if (this.status === 'canceled') return [];
    this.takeDetails(snapshot);
    if (snapshot.cancelAtPeriodEnd) this.cancelAtPeriodEnd = true;
    const next = nextSubscriptionStatus(this.status as SubscriptionStatus, snapshot.status, snapshot.statusKnown);
    if (!next) return [];
    this.status = next;
    if (next === 'canceled') this.canceledAt = dateOrNull(snapshot.canceledAt) ?? new Date();
    const type = subscriptionEventType(next);
    return type ? [this.event(type)] : [];
  }

  /** A recurring charge was paid: the period moves on and a past-due subscription recovers. */
  chargePaid(nextBillingAt: string | null): DomainEvent[] {
    if (this.status === 'canceled') return [];
    if (nextBillingAt) this.nextBillingAt = new Date(nextBillingAt);
    if (this.status === 'past_due' || this.status === 'trialing') this.status = 'active';
    return [this.event('subscription.renewed')];
  }

  /** A charge attempt failed; the gateway may still retry before declaring past_due. */
  chargeFailed(): DomainEvent[] {
    if (this.status === 'canceled') return [];
    return [this.event('subscription.payment_failed')];
  }
}
SubscriptionSchema.setClass(Subscription);
