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

export const PaymentSchema = defineEntity({
  name: 'Payment',
  tableName: 'payments',
  uniques: [{ properties: ['environment', 'externalId'] }],
  // The dashboard's list: newest first within an environment (keyset on createdAt, id).
  indexes: [
    { properties: ['gateway', 'gatewayRef'] },
    { properties: ['environment', 'createdAt', 'id'] },
    // Background reconciliation reads what is due; only unfinished rows carry a time, so the index stays small.
    { name: 'payments_reconcile_due_index', expression: 'create index "payments_reconcile_due_index" on "payments" ("reconcile_at") where "reconcile_at" is not null' },
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
  },
});

/** How far along a status is: a payment only moves forward, and anything final is as far as it gets. */
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
 * The status to move to, or null to stay. A status the gateway table does not
 * know never moves a payment (its safe fallback only matters for new payments).
 */
export function nextPaymentStatus(current: PaymentStatus, reported: PaymentStatus, reportedIsKnown = true): PaymentStatus | null {
  if (!reportedIsKnown) return null;
  if (isFinalPaymentStatus(current) || reported === current) return null;
  return RANK[reported] > RANK[current] ? reported : null;
}

export const paymentEventType = (status: PaymentStatus): PaymentEventType | null => EVENT_OF[status];

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
   * Applies what the gateway reports. Details (QR code, card) are filled in
   * whenever they arrive; the status moves by `nextPaymentStatus`, and each
   * change records the event of its new status.
   */
  applyGatewaySnapshot(snapshot: PaymentSnapshot): DomainEvent[] {
    if (snapshot.checkoutUrl) this.checkoutUrl = snapshot.checkoutUrl;
    if (snapshot.pix) {
      this.pixQrCode = snapshot.pix.qrCode;
      this.pixQrCodeText = snapshot.pix.qrCodeText;
    }
    if (snapshot.card) {
      this.cardBrand = snapshot.card.brand;
      this.cardLast4 = snapshot.card.last4;
    }
    const next = nextPaymentStatus(this.status as PaymentStatus, snapshot.status, snapshot.statusKnown);
    if (!next) return [];
    this.status = next;
    this.gatewayStatus = snapshot.rawStatus.slice(0, 64);
    const type = paymentEventType(next);
    return type ? [this.event(type)] : [];
  }
}
PaymentSchema.setClass(Payment);
