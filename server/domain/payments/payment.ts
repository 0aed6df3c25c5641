/**
 * The payment aggregate: its table, its state machine and its cancel rules,
 * in one place. Every status change, whatever caused it (create, sync,
 * inbound webhook, cancel), goes through `applyGatewaySnapshot`, which
 * returns the events the change causes; the caller writes them in the same
 * transaction (domain/locked-apply.ts, the transactional outbox).
 */
import { defineEntity, p, type Opt } from '@mikro-orm/core';
import { FINAL_PAYMENT_STATUSES, PAYMENT_METHODS, PAYMENT_STATUSES, type PaymentStatus } from '../../contract/enums';
import { Refusal } from '../refusal';
import type { PaymentSnapshot } from '../../gateways/adapter';
import type { DomainEvent, PaymentEventType } from '../events';
import { newId } from '../../contract/ids';
import { raises } from '../raises';
import { registrationColumns } from '../registration/columns';
import type { RoutingAttempt, RoutingTrace } from '../routing/trace';
import { newestApplied, orderOfReport, type GatewayReport, type ReportOrder } from '../report-order';

/** How a payment may end without its gateway's word (decision 28). */
export const PAYMENT_ENDINGS = ['clock', 'service'] as const;
export type PaymentEnding = (typeof PAYMENT_ENDINGS)[number];

export const PaymentSchema = defineEntity({
  name: 'Payment',
  tableName: 'payments',
  uniques: [{ properties: ['environment', 'externalId'] }],
  // The dashboard's list: newest first within an environment (keyset on createdAt, id).
  indexes: [
    { properties: ['gateway', 'gatewayRef'] },
    { properties: ['environment', 'createdAt', 'id'] },
    // The lists' search and sort (domain/listing/search.ts, sort.ts; migration list_search_indexes).
    { properties: ['environment', 'amount', 'id'] },
    { name: 'payments_customer_email_search_index', expression: 'create index "payments_customer_email_search_index" on "payments" ("environment_id", lower("customer_email") text_pattern_ops)' },
    // Background reconciliation reads what is due; only unfinished rows carry a time, so the index stays small.
    { name: 'payments_reconcile_due_index', expression: 'create index "payments_reconcile_due_index" on "payments" ("reconcile_at") where "reconcile_at" is not null' },
    // A notification about an attempt a fallback abandoned finds its payment by the orphan's reference (reconciliation/orphan-reports.ts).
    { name: 'payments_orphan_refs_index', expression: `create index "payments_orphan_refs_index" on "payments" using gin ((jsonb_path_query_array("routing_trace", '$.attempts[*].orphanRef')))` },
  ],
  properties: {
    id: p.string().primary().onCreate(() => newId('pay')),
    ...registrationColumns,
    method: p.enum(PAYMENT_METHODS),
    installments: p.integer().default(1),
    status: p.enum(PAYMENT_STATUSES).default('created'),
    pixQrCode: p.text().nullable(),
    pixQrCodeText: p.text().nullable(),
    cardBrand: p.string().length(64).nullable(),
    cardLast4: p.string().length(4).nullable(),
    /** The subscription whose recurring charge this payment is, if any. */
    subscriptionId: p.string().length(64).nullable(),
    /** When the payment became `paid` here. */
    paidAt: p.datetime().nullable(),
    /** Pix: when the gateway says the code stops being payable. */
    expiresAt: p.datetime().nullable(),
    /**
     * How the payment ended when it was not by its gateway's word (decision 28): `clock` (a Pix past its expiry that
     * the gateway still called open), `service` (canceled by this service); null otherwise.
     */
    endedBy: p.enum(PAYMENT_ENDINGS).nullable(),
    /**
     * Until when reconciliation keeps reading it for late money (decision 28), at `reconcileAt` on the late schedule;
     * null when nothing ended without its gateway's word.
     */
    lateWatchUntil: p.datetime().nullable(),
    /** Cents given back by refunds that succeeded (decision 18); moved only by a refund reaching `succeeded`, in its transaction. */
    amountRefunded: p.bigint('number').default(0),
  },
});

/** How far along a status is: among reports that carry no order of their own, a payment only moves forward. */
const RANK: Record<PaymentStatus, number> = {
  created: 0,
  pending: 1,
  processing: 2,
  paid: 3,
  failed: 3,
  canceled: 3,
  expired: 3,
};

/** The event each status records when a payment reaches it; `processing` has none. */
const EVENT_OF: Record<PaymentStatus, PaymentEventType | null> = {
  created: 'payment.created',
  pending: 'payment.pending',
  processing: null,
  paid: 'payment.paid',
  failed: 'payment.failed',
  canceled: 'payment.canceled',
  expired: 'payment.expired',
};

export const isFinalPaymentStatus = (status: PaymentStatus): boolean => FINAL_PAYMENT_STATUSES.includes(status);

/**
 * The status to move to, or null to stay, for a report in `order`
 * (domain/report-order.ts, decision 17): the present moves in any direction
 * among non-final statuses (`processing` back to `pending`), an unordered
 * report only forward, a stale one not at all. Whatever the order, a final
 * status stays final, except that a payment the gateway says is paid becomes
 * paid (decision 16: late money). A status the gateway table does not
 * know never moves a payment (its safe fallback only matters for new payments).
 */
export function nextPaymentStatus(current: PaymentStatus, reported: PaymentStatus, reportedIsKnown = true, order: ReportOrder = 'unordered'): PaymentStatus | null {
  if (!reportedIsKnown || reported === current) return null;
  if (reported === 'paid') return 'paid';
  if (isFinalPaymentStatus(current) || order === 'stale') return null;
  if (order === 'present') return reported;
  return RANK[reported] > RANK[current] ? reported : null;
}

export const paymentEventType = (status: PaymentStatus): PaymentEventType | null => EVENT_OF[status];

/** The abandoned attempts whose orphan is known by its reference and was not reported paid yet: what a read can still find (decision 28). */
export const orphansToWatch = (trace: RoutingTrace | null | undefined): (RoutingAttempt & { orphanRef: string })[] =>
  (trace?.attempts ?? []).filter((attempt): attempt is RoutingAttempt & { orphanRef: string } => attempt.orphanRef != null && attempt.reportedPaidAt == null);

const ENDED: readonly PaymentStatus[] = ['canceled', 'expired', 'failed'];

export const CANCEL_RULES = raises(['cannot_cancel_pix', 'cannot_cancel_paid', 'already_canceled', 'cannot_cancel_status', 'missing_gateway_ref']);

/**
 * Whether a payment can be canceled now, checked in the order the OpenAPI
 * document states: Pix never, paid never (cancel is not a refund), a final
 * status is already over, a status the gateway is working on cannot be
 * interrupted, and there must be a gateway reference to act on.
 */
export function assertCancelable(payment: { method: string; status: string; gatewayRef?: string | null }): void {
  const status = payment.status as PaymentStatus;
  if (payment.method === 'pix') throw new Refusal('cannot_cancel_pix');
  if (status === 'paid') throw new Refusal('cannot_cancel_paid');
  if (ENDED.includes(status)) throw new Refusal('already_canceled', { status });
  if (status !== 'created' && status !== 'pending') {
    throw new Refusal('cannot_cancel_status', { status }, 'The payment is being processed by the gateway and cannot be canceled now.');
  }
  if (!payment.gatewayRef) throw new Refusal('missing_gateway_ref');
}

export class Payment extends PaymentSchema.class {
  get isRegistered(): Opt<boolean> {
    return this.gatewayRef != null;
  }

  /** The `data` of a payment event, as of now (an event carries the state of its transition, never re-read). */
  eventData(): Record<string, unknown> {
    return {
      paymentId: this.id,
      externalId: this.externalId,
      status: this.status,
      method: this.method,
      provider: this.gateway,
      amount: this.amount,
      currency: this.currency,
      gatewayRef: this.gatewayRef ?? null,
    };
  }

  private event(type: PaymentEventType): DomainEvent {
    return { type, resourceId: this.id, environmentId: this.environment.id, data: this.eventData() };
  }

  /** The gateway accepted the create: keep its reference and what it handed over, then apply its status. */
  registerAtGateway(snapshot: PaymentSnapshot): DomainEvent[] {
    this.gatewayRef = snapshot.gatewayRef;
    return [this.event('payment.created'), ...this.applyGatewaySnapshot(snapshot)];
  }

  /**
   * Applies what the gateway reports, `reportedAt` being the report's own
   * time (a webhook's event time, or when a sync read the gateway; null when
   * unknown) and `present` whether it is a read of the gateway's state now.
   * Details (QR code, card, expiry) are filled in whenever they arrive; the
   * status moves by `nextPaymentStatus`, and each change records the event
   * of its new status. A Pix is announced `pending` only with its code: until
   * the gateway hands it over the payment stays `created`.
   */
  applyGatewaySnapshot(snapshot: PaymentSnapshot, report: GatewayReport = { reportedAt: null, present: false }): DomainEvent[] {
    if (snapshot.checkoutUrl) this.checkoutUrl = snapshot.checkoutUrl;
    if (snapshot.pix) {
      this.pixQrCode = snapshot.pix.qrCode;
      this.pixQrCodeText = snapshot.pix.qrCodeText;
    }
    if (snapshot.card) {
      this.cardBrand = snapshot.card.brand;
      this.cardLast4 = snapshot.card.last4;
    }
    if (snapshot.expiresAt && this.method === 'pix') this.expiresAt = new Date(snapshot.expiresAt);
    const order = orderOfReport(report, this.gatewaySeenAt);
    this.gatewaySeenAt = newestApplied(report, order, this.gatewaySeenAt);
    let next = nextPaymentStatus(this.status as PaymentStatus, snapshot.status, snapshot.statusKnown, order);
    if (next === 'pending' && this.method === 'pix' && !this.pixQrCodeText) next = null;
    if (!next) return [];
    this.status = next;
    this.gatewayStatus = snapshot.rawStatus.slice(0, 64);
    // Decision 26: the gateway's time of payment where it reports one, else the moment we learn it.
    if (next === 'paid') this.paidAt = snapshot.paidAt ? new Date(snapshot.paidAt) : new Date();
    // Nothing is left to find out at the gateway (a late payment is reported by its webhook or a sync),
    // unless abandoned attempts of it are still watched for late money (decision 28).
    if (isFinalPaymentStatus(next) && !this.watchesOrphans()) this.reconcileAt = null;
    const type = paymentEventType(next);
    return type ? [this.event(type)] : [];
  }

  /** Whether abandoned attempts of it, known by their reference, are still read for late money (decision 28). */
  watchesOrphans(): boolean {
    return this.lateWatchUntil != null && this.lateWatchUntil > new Date() && orphansToWatch(this.routingTrace).length > 0;
  }

  /**
   * Ends the payment without its gateway's word (decision 28): a Pix whose code
   * expired by our clock while the gateway still called it open, or a payment
   * canceled by this service. It stays on the reconciliation schedule until
   * `watchUntil`, first read at `firstReadAt`, so a payment the gateway took
   * anyway is found (decision 16). Answers the events of the change.
   */
  endWithoutGatewayWord(status: 'expired' | 'canceled', by: PaymentEnding, firstReadAt: Date, watchUntil: Date): DomainEvent[] {
    const current = this.status as PaymentStatus;
    if (current !== status && isFinalPaymentStatus(current)) return [];
    this.endedBy = by;
    this.lateWatchUntil = watchUntil;
    this.reconcileAt = firstReadAt;
    if (current === status) return [];
    this.status = status;
    return [this.event(paymentEventType(status)!)];
  }
}
PaymentSchema.setClass(Payment);
