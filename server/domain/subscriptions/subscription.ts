/**
 * The subscription aggregate: its table and its state machine, in one place.
 * `canceled` is final; a trial ends into `active`; `past_due` can come from
 * anywhere live (with or without a failed charge before it) and recovers to
 * `active`. Like Payment, every change goes through methods that return the
 * events it causes, which the caller writes in the same transaction.
 *
 * Reports from the gateway are placed in time (decision 17,
 * domain/report-order.ts): a webhook carries the gateway's own event time, a
 * read (sync, reconciliation, a cancel's answer) is the gateway's present
 * truth and moves the status in any direction among the non-final ones
 * (`active` back to `trialing`). `gatewaySeenAt` keeps the newest report
 * applied, so a webhook older than it changes nothing.
 */
import { defineEntity, p, type Opt } from '@mikro-orm/core';
import { TEXT_LIMITS } from '../../contract/limits';
import { SUBSCRIPTION_INTERVALS, SUBSCRIPTION_STATUSES, type SubscriptionStatus } from '../../contract/enums';
import type { SubscriptionSnapshot } from '../../gateways/adapter';
import type { DomainEvent, SubscriptionEventType } from '../events';
import { gatewayRead, newestApplied, orderOfReport, type GatewayReport, type ReportOrder } from '../report-order';
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
    // The lists' search and sort (domain/listing/search.ts, sort.ts; migration list_search_indexes).
    { properties: ['environment', 'amount', 'id'] },
    { name: 'subscriptions_customer_email_search_index', expression: 'create index "subscriptions_customer_email_search_index" on "subscriptions" ("environment_id", lower("customer_email") text_pattern_ops)' },
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

/** The forward moves a status may make on a report whose place in time is unknown; anything else it reports is ignored. */
const FORWARD: Record<SubscriptionStatus, readonly SubscriptionStatus[]> = {
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

/**
 * The status to move to, or null to stay: `canceled` is final and a stale
 * report moves nothing; the gateway's present truth moves anywhere
 * (decision 17); a report without an order only forward.
 */
export function nextSubscriptionStatus(current: SubscriptionStatus, reported: SubscriptionStatus, reportedIsKnown = true, order: ReportOrder = 'unordered'): SubscriptionStatus | null {
  if (!reportedIsKnown || reported === current || current === 'canceled' || order === 'stale') return null;
  if (order === 'present') return reported;
  return FORWARD[current].includes(reported) ? reported : null;
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

  /** Where `report` stands against the newest report applied, which it then becomes unless it is stale. */
  private place(report: GatewayReport): ReportOrder {
    const order = orderOfReport(report, this.gatewaySeenAt);
    this.gatewaySeenAt = newestApplied(report, order, this.gatewaySeenAt);
    return order;
  }

  /** Moves to `next` when a report in `order` may make that move, with the event of the new status. */
  private moveTo(next: SubscriptionStatus, order: ReportOrder, canceledAt: string | null = null): DomainEvent[] {
    if (!nextSubscriptionStatus(this.status as SubscriptionStatus, next, true, order)) return [];
    this.status = next;
    if (next === 'canceled') {
      this.canceledAt = dateOrNull(canceledAt) ?? new Date();
      // Once a cancel has taken effect nothing more is billed, whatever date the gateway last gave (decision 20).
      this.nextBillingAt = null;
      // Final: background reconciliation has nothing left to find out.
      this.reconcileAt = null;
    }
    const type = subscriptionEventType(next);
    return type ? [this.event(type)] : [];
  }

  /**
   * The gateway accepted the create. Its answer confirms the subscription,
   * which is announced at once with that confirmed state; on gateway_c it is
   * only a checkout link, and `subscription.created` waits for the customer.
   */
  registerAtGateway(snapshot: SubscriptionSnapshot): DomainEvent[] {
    this.gatewayRef = snapshot.gatewayRef;
    if (this.awaitingCheckout) {
      this.takeDetails(snapshot);
      return [];
    }
    // The create's answer has no time of its own to order webhooks against.
    return this.confirm(snapshot, { reportedAt: null, present: true });
  }

  /**
   * gateway_c: the checkout link became a subscription (its webhook, or a
   * sync that found the link completed). A subscription already canceled
   * here stays canceled and announces nothing (the gateway subscription that
   * appeared is canceled there by the caller); it keeps the new reference so
   * later notifications about it are recognized. A second report of the same
   * completion is an ordinary status report.
   */
  completeCheckout(snapshot: SubscriptionSnapshot, report: GatewayReport): DomainEvent[] {
    this.gatewayRef = snapshot.gatewayRef;
    if (this.status === 'canceled') return [];
    if (this.createdEventRecorded) return this.applyGatewaySnapshot(snapshot, report);
    return this.confirm(snapshot, report);
  }

  /**
   * The first word of the gateway on a real subscription: its status is the
   * initial one (a trial the plan gives, or none), not a move, and
   * `subscription.created` carries it, so nothing changes silently in the
   * same commit. A subscription the gateway already reports canceled is
   * announced, then canceled.
   */
  private confirm(snapshot: SubscriptionSnapshot, report: GatewayReport): DomainEvent[] {
    this.takeDetails(snapshot);
    if (snapshot.cancelAtPeriodEnd) this.cancelAtPeriodEnd = true;
    this.place(report);
    const ended = snapshot.statusKnown && snapshot.status === 'canceled';
    if (snapshot.statusKnown && !ended) this.status = snapshot.status;
    const events = this.recordCreated();
    if (ended) events.push(...this.moveTo('canceled', 'present', snapshot.canceledAt));
    return events;
  }

  private recordCreated(): DomainEvent[] {
    if (this.createdEventRecorded) return [];
    this.createdEventRecorded = true;
    return [this.event('subscription.created')];
  }

  /**
   * Applies the gateway's view: cancel-at-period-end, dates, and its status.
   * A webhook older than the newest report applied (`gatewaySeenAt`) is stale
   * and changes nothing; a read of the gateway, or a webhook no older, is its
   * truth and moves the status in any direction among the non-final ones; a
   * webhook without a time moves it only forward.
   */
  applyGatewaySnapshot(snapshot: SubscriptionSnapshot, report: GatewayReport): DomainEvent[] {
    if (this.status === 'canceled') return [];
    const order = this.place(report);
    if (order === 'stale') return [];
    this.takeDetails(snapshot);
    if (snapshot.cancelAtPeriodEnd) this.cancelAtPeriodEnd = true;
    if (!snapshot.statusKnown) return [];
    return this.moveTo(snapshot.status, order, snapshot.canceledAt);
  }

  /**
   * What a read of the gateway by `readRef` answered (sync, reconciliation).
   * An answer under another reference is what the reference became (gateway_c:
   * the checkout link was completed into a subscription), applied as that
   * completion's webhook would be. When the stored reference changed while the
   * gateway was being read (a webhook completed the checkout meanwhile), the
   * answer is about the past and is dropped.
   */
  applyGatewayRead(readRef: string, snapshot: SubscriptionSnapshot, readAt: Date): DomainEvent[] {
    if (this.gatewayRef !== readRef) return [];
    const report = gatewayRead(readAt);
    return snapshot.gatewayRef === readRef ? this.applyGatewaySnapshot(snapshot, report) : this.completeCheckout(snapshot, report);
  }

  /**
   * A recurring charge was paid: the period moves on and a trialing or
   * past-due subscription becomes active. A charge older than the newest
   * report applied is still a renewal (money was received) but moves nothing.
   */
  chargePaid(nextBillingAt: string | null, report: GatewayReport): DomainEvent[] {
    if (this.status === 'canceled') return [];
    if (this.place(report) === 'stale') return [this.event('subscription.renewed')];
    if (nextBillingAt) this.nextBillingAt = new Date(nextBillingAt);
    // A paid charge only ever makes it active (from a trial or past due). Becoming active records no event of its own (EVENT_OF): the renewal is the event.
    return [...this.moveTo('active', 'unordered'), this.event('subscription.renewed')];
  }

  /** A charge attempt failed; the gateway may still retry before declaring past_due. */
  chargeFailed(): DomainEvent[] {
    if (this.status === 'canceled') return [];
    return [this.event('subscription.payment_failed')];
  }
}
SubscriptionSchema.setClass(Subscription);
