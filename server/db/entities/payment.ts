import { defineEntity, p, type Opt } from '@mikro-orm/core';
import { TEXT_LIMITS } from '../../contract/limits';
import { GATEWAY_NAMES, PAYMENT_METHODS, PAYMENT_STATUSES, type PaymentStatus } from '../../contract/enums';
import { newId } from '../../domain/ids';
import type { DomainEvent } from '../../domain/events';
import { nextPaymentStatus, paymentEventType } from '../../domain/payments/states';
import type { PaymentSnapshot } from '../../gateways/adapter';
import { Environment } from './environment';

/**
 * A one-off charge and its state machine. Every status change, whatever
 * caused it (create, sync, inbound webhook, cancel), goes through
 * `applyGatewaySnapshot`, which returns the events the change causes; the
 * caller persists them in the same flush (transactional outbox).
 */
export const PaymentSchema = defineEntity({
  name: 'Payment',
  tableName: 'payments',
  uniques: [{ properties: ['environment', 'externalId'] }],
  // The dashboard's list: newest first within an environment (keyset on createdAt, id).
  indexes: [{ properties: ['gateway', 'gatewayRef'] }, { properties: ['environment', 'createdAt', 'id'] }],
  properties: {
    id: p.string().primary().onCreate(() => newId('pay')),
    environment: () => p.manyToOne(Environment),
    externalId: p.string().length(TEXT_LIMITS.externalId),
    method: p.enum(PAYMENT_METHODS),
    gateway: p.enum(GATEWAY_NAMES),
    amount: p.bigint('number'),
    currency: p.string().length(3).default('BRL'),
    installments: p.integer().default(1),
    status: p.enum(PAYMENT_STATUSES).default('created'),
    gatewayRef: p.string().length(255).nullable(),
    checkoutUrl: p.text().nullable(),
    pixQrCode: p.text().nullable(),
    pixQrCodeText: p.text().nullable(),
    cardBrand: p.string().length(64).nullable(),
    cardLast4: p.string().length(4).nullable(),
    customerName: p.string().length(TEXT_LIMITS.customerName).nullable(),
    customerEmail: p.string().length(TEXT_LIMITS.customerEmail).nullable(),
    customerDocumentLast4: p.string().length(4).nullable(),
    metadata: p.json<Record<string, unknown>>().nullable(),
    /** The gateway's last raw status word, for support. */
    gatewayStatus: p.string().length(64).nullable(),
    /** SHA-256 of the normalized create request, to notice a repeated externalId with a different payload. */
    requestHash: p.string().length(64),
    /**
     * The create request as the gateway needs it (full document included), sealed with the master key,
     * kept only until the gateway has registered the payment so an interrupted create can be completed.
     */
    pendingRequestSealed: p.text().nullable(),
    /** While set and in the future, one request is calling the gateway to register this payment. */
    registrationLeaseUntil: p.datetime().nullable(),
    subscriptionId: p.string().length(64).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

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

  private event(type: string): DomainEvent {
    return { type, resourceId: this.id, environmentId: this.environment.id, data: this.eventData() };
  }

  /** The gateway accepted the create: keep its reference and what it handed over, then apply its status. */
  registerAtGateway(snapshot: PaymentSnapshot): DomainEvent[] {
    this.gatewayRef = snapshot.gatewayRef;
    const events = [this.event('payment.created')];
    return [...events, ...this.applyGatewaySnapshot(snapshot)];
  }

  /**
   * Applies what the gateway reports. Details (QR code, card) are filled in
   * whenever they arrive; the status only moves forward, final statuses never
   * change, and each change but `processing` records its event.
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
