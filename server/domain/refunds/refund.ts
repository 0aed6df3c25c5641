/**
 * The refund aggregate (decision 18): money given back from a paid payment,
 * in full or in part, through the payment's gateway. Its table and its state
 * machine: `pending` until the gateway says it settled (`succeeded`) or did
 * not (`failed`); both are final and never move back, whatever arrives later.
 * The final state always comes from the gateway (the create's answer, a
 * webhook, a reconciliation read), never assumed: a call that timed out
 * leaves the refund `pending`.
 *
 * A refund is registered at its gateway like a payment (registration/): the
 * row is inserted holding the registration lease, with the gateway request
 * sealed for a take-over, and takes the gateway's reference when it answers.
 * Unlike a payment, a refund the gateway refuses stays, `failed`, with the
 * gateway's reason: the merchant asked to give money back and is told it did
 * not happen (refund.failed), rather than finding the request gone.
 */
import { defineEntity, p, type Opt } from '@mikro-orm/core';
import { REFUND_STATUSES, type RefundStatus } from '../../contract/enums';
import type { WebhookEventType } from '../../contract/event-types';
import { newId } from '../../contract/ids';
import { TEXT_LIMITS } from '../../contract/limits';
import type { RefundSnapshot } from '../../gateways/adapter';
import type { DomainEvent } from '../events';
import { Payment } from '../payments/payment';
import { registrationColumns } from '../registration/columns';

export type RefundEventType = Extract<WebhookEventType, `refund.${string}`>;

// The registration and reconciliation columns payments use, named one by one: a column added there for
// payments and subscriptions (a customer, a routing trace) is not a refund's.
const {
  environment,
  externalId,
  gateway,
  amount,
  currency,
  gatewayRef,
  gatewayStatus,
  requestHash,
  pendingRequestSealed,
  registrationLeaseUntil,
  createdAt,
  updatedAt,
  gatewaySeenAt,
  reconcileAt,
  reconcileChecks,
  reconciledAt,
  reconcileLeaseUntil,
  gatewayMissingAt,
} = registrationColumns;

export const RefundSchema = defineEntity({
  name: 'Refund',
  tableName: 'refunds',
  uniques: [{ properties: ['environment', 'externalId'] }],
  indexes: [
    // The refunds of a payment: the sum rule reads them under the payment's row lock, the views list them.
    { properties: ['payment', 'createdAt'] },
    { properties: ['gateway', 'gatewayRef'] },
    { properties: ['environment', 'createdAt', 'id'] },
    { name: 'refunds_reconcile_due_index', expression: 'create index "refunds_reconcile_due_index" on "refunds" ("reconcile_at") where "reconcile_at" is not null' },
  ],
  properties: {
    id: p.string().primary().onCreate(() => newId('ref')),
    environment,
    payment: () => p.manyToOne(Payment),
    externalId,
    gateway,
    /** Integer cents given back. */
    amount,
    currency,
    reason: p.string().length(TEXT_LIMITS.refundReason).nullable(),
    status: p.enum(REFUND_STATUSES).default('pending'),
    /** The gateway's refund id; null until the gateway has accepted the refund (and for one it refused). */
    gatewayRef,
    gatewayStatus,
    /** Why the gateway refused or failed the refund, in its words; null otherwise. */
    failureReason: p.string().length(TEXT_LIMITS.refundFailureReason).nullable(),
    requestHash,
    pendingRequestSealed,
    registrationLeaseUntil,
    createdAt,
    updatedAt,
    gatewaySeenAt,
    reconcileAt,
    reconcileChecks,
    reconciledAt,
    reconcileLeaseUntil,
    gatewayMissingAt,
  },
});

const EVENT_OF: Record<Exclude<RefundStatus, 'pending'>, RefundEventType> = {
  succeeded: 'refund.succeeded',
  failed: 'refund.failed',
};

export const isFinalRefundStatus = (status: RefundStatus): boolean => status !== 'pending';

/** The status a gateway report moves a refund to, or null to stay: only out of `pending`, only to a status the gateway's table knows. */
export function nextRefundStatus(current: RefundStatus, reported: RefundStatus, reportedIsKnown = true): RefundStatus | null {
  if (!reportedIsKnown || isFinalRefundStatus(current) || reported === current) return null;
  return reported;
}

const clip = (text: string | null | undefined, max: number): string | null => (text ? [...text].slice(0, max).join('') : null);

export class Refund extends RefundSchema.class {
  /** Nothing is left to ask the gateway to create: it accepted the refund (a reference) or refused it (failed without one). */
  get isRegistered(): Opt<boolean> {
    return this.gatewayRef != null || this.status !== 'pending';
  }

  /** The `data` of a refund event, as of now: the refund's fields and its payment. */
  eventData(): Record<string, unknown> {
    return {
      refundId: this.id,
      paymentId: this.payment.id,
      externalId: this.externalId,
      status: this.status,
      provider: this.gateway,
      amount: this.amount,
      currency: this.currency,
      reason: this.reason ?? null,
      gatewayRef: this.gatewayRef ?? null,
      failureReason: this.failureReason ?? null,
    };
  }

  private event(type: RefundEventType): DomainEvent {
    return { type, resourceId: this.id, environmentId: this.environment.id, data: this.eventData() };
  }

  /** The gateway accepted the refund: keep its reference, announce the refund, then apply the status it answered. */
  registerAtGateway(snapshot: RefundSnapshot): DomainEvent[] {
    this.gatewayRef = snapshot.gatewayRef;
    const created = this.event('refund.created');
    return [created, ...this.applyGatewaySnapshot(snapshot, { reportedAt: null })];
  }

  /**
   * The gateway refused the refund as asked (nothing exists there): it is
   * announced and failed at once, with the gateway's reason. Only a refund
   * still waiting for its registration can be refused.
   */
  refusedByGateway(reason: string): DomainEvent[] {
    if (this.isRegistered) return [];
    const created = this.event('refund.created');
    this.status = 'failed';
    this.failureReason = clip(reason, TEXT_LIMITS.refundFailureReason);
    this.pendingRequestSealed = null;
    this.registrationLeaseUntil = null;
    this.reconcileAt = null;
    return [created, this.event('refund.failed')];
  }

  /**
   * Applies what the gateway reports (a create's answer, a webhook, a read).
   * A final status never moves; `reportedAt` (a webhook's own time, or when a
   * read began) is kept as the newest report seen. Returns the event of the
   * new status; the caller adds the refunded amount to the payment when it is
   * `succeeded` (`settledAmount`).
   */
  applyGatewaySnapshot(snapshot: RefundSnapshot, report: { reportedAt: Date | null }): DomainEvent[] {
    if (report.reportedAt && (!this.gatewaySeenAt || report.reportedAt > this.gatewaySeenAt)) this.gatewaySeenAt = report.reportedAt;
    // A final refund keeps the gateway's word that made it final.
    if (isFinalRefundStatus(this.status)) return [];
    this.gatewayStatus = clip(snapshot.rawStatus, 64);
    const next = nextRefundStatus(this.status, snapshot.status, snapshot.statusKnown);
    if (!next || next === 'pending') return [];
    this.status = next;
    if (next === 'failed') this.failureReason = clip(snapshot.failureReason, TEXT_LIMITS.refundFailureReason) ?? 'the gateway did not say why';
    // Nothing is left to find out at the gateway.
    this.reconcileAt = null;
    return [this.event(EVENT_OF[next])];
  }
}
RefundSchema.setClass(Refund);

/** What a change of refunds adds to its payment's `amountRefunded`: the amounts of those that became `succeeded`. */
export const settledAmount = (events: readonly DomainEvent[], refund: Refund): number => (events.some((event) => event.type === 'refund.succeeded') ? refund.amount : 0);
