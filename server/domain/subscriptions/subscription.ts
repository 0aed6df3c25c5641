/**
 * The subscription aggregate: its table and its state machine, in one place.
 * `canceled` is final; a trial ends into `active`; `past_due` can come from
 * anywhere live (with or without a failed charge before it) and recovers to
 * `active`. Like Payment, every change goes through methods that return the
 * events it causes, which the caller writes in the same transaction.
 *
 * Reports from the gateway are placed in time (decision 17): a webhook
 * carries the gateway's own event time, a read (sync, reconciliation, a
 * cancel's answer) is the gateway's present truth. `gatewaySeenAt` keeps the
 * newest report applied, so a webhook older than it changes nothing.
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

/**
 * What a gateway report is: `reportedAt` its own time (a webhook's event
 * time, or when a sync read the gateway; null when the protocol gives none)
 * and `present` whether it is a read of the gateway's state now, which is
 * never stale.
 */
export interface GatewayReport {
  reportedAt: Date | null;
  present: boolean;
}

/** A read of the gateway made at `at` (sync, reconciliation, the answer to a cancel). */
export const gatewayRead = (at: Date): GatewayReport => ({ reportedAt: at, present: true });

/** An inbound webhook, stamped with the gateway's event time when its protocol has one. */
export function gatewayNotification(occurredAt: string | null): GatewayReport {
  const at = occurredAt ? new Date(occurredAt) : null;
  return { reportedAt: at && !Number.isNaN(at.getTime()) ? at : null, present: false };
}

/**
 * How far apart two reports must be to be told apart: some protocols stamp
 * their events in whole seconds (gateway_a), so an event of the same second
 * as a sync may well be newer than what the sync read. Within this margin
 * the order is unknown and the transition table alone decides.
 */
const REPORT_RESOLUTION_MS = 1_000;

/** True when a webhook is certainly older than the newest report already applied. */
export function isStaleReport(report: GatewayReport, newestApplied: Date | null | undefined): boolean {
  if (report.present || !report.reportedAt || !newestApplied) return false;
  return report.reportedAt.getTime() < newestApplied.getTime() - REPORT_RESOLUTION_MS;
}

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

  /** Keeps the time of the newest report applied (a report without a time tells nothing about it). */
  private noteSeen(report: GatewayReport): void {
    const at = report.reportedAt;
    if (at && (!this.gatewaySeenAt || at > this.gatewaySeenAt)) this.gatewaySeenAt = at;
  }

  /** Moves to `next` when the transition table allows it, with the event of the new status. */
  private moveTo(next: SubscriptionStatus, canceledAt: string | null = null): DomainEvent[] {
    if (!nextSubscriptionStatus(this.status as SubscriptionStatus, next)) return [];
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
    this.noteSeen(report);
    const ended = snapshot.statusKnown && snapshot.status === 'canceled';
    if (snapshot.statusKnown && !ended) this.status = snapshot.status;
    const events = this.recordCreated();
    if (ended) events.push(...this.moveTo('canceled', snapshot.canceledAt));
    return events;
  }

  private recordCreated(): DomainEvent[] {
    if (this.createdEventRecorded) return [];
    this.createdEventRecorded = true;
    return [this.event('subscription.created')];
  }

  /**
   * Applies the gateway's view: cancel-at-period-end, dates, and a status the
   * transition table allows. A webhook older than the newest report applied
   * (`gatewaySeenAt`) is stale and changes nothing; a newer one, or a read of
   * the gateway, is its truth.
   */
  applyGatewaySnapshot(snapshot: SubscriptionSnapshot, report: GatewayReport): DomainEvent[] {
    if (this.status === 'canceled' || isStaleReport(report, this.gatewaySeenAt)) return [];
    this.takeDetails(snapshot);
    this.noteSeen(report);
    if (snapshot.cancelAtPeriodEnd) this.cancelAtPeriodEnd = true;
    if (!snapshot.statusKnown) return [];
    return this.moveTo(snapshot.status, snapshot.canceledAt);
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
    if (isStaleReport(report, this.gatewaySeenAt)) return [this.event('subscription.renewed')];
    this.noteSeen(report);
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
