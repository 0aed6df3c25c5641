/**
 * gateway_a's sandbox state: what the simulated gateway holds in memory (its
 * payments, subscriptions, idempotency keys, what its hosted pages show) and
 * the changes that also notify, as the real gateway's webhooks would. The
 * wire routes (routes.ts) and the operator's actions (actions.ts) both work
 * on it.
 */
import { QrImages } from '../simulator/brcode';
import { DEFAULT_CARD, found, newId } from '../simulator/fixtures';
import { pixTransactionId, RefundLedger, type SimRefund, type SimRefundState } from '../simulator/refunds';
import { WebhookDispatcher } from '../simulator/webhooks';
import { hmacSha256 } from '../../gateways/signing';
import {
  SIGNATURE_HEADER,
  type GatewayACredentials,
  type WireDevolucao,
  type WirePayment,
  type WireRefund,
  type WireSubscription,
} from '../../gateways/gateway_a/wire';

export const now = () => Math.floor(Date.now() / 1000);
/** How long a sandbox Pix code is payable, as its `expires_at` says (the simulator expires it only when told to). */
export const PIX_LIFETIME_SECONDS = 30 * 60;

/** Statuses in which the customer or the gateway can still act. */
export const OPEN_PAYMENT = ['requires_payment_method', 'requires_action', 'processing'];
export const OPEN_SUBSCRIPTION = ['trialing', 'active', 'past_due', 'unpaid'];
/** The sandbox's 8-digit ISPB in the Pix ids it hands out (end-to-end ids, rtrIds). */
export const SANDBOX_ISPB = '99990001';

/** A refund's words on gateway_a's wire: card refunds in its own, devoluções in the Pix API's. */
const CARD_REFUND_STATUS: Record<SimRefundState, string> = { pending: 'pending', succeeded: 'succeeded', failed: 'failed' };
const DEVOLUCAO_STATUS: Record<SimRefundState, string> = { pending: 'EM_PROCESSAMENTO', succeeded: 'DEVOLVIDO', failed: 'NAO_REALIZADO' };

export type GatewayARefund = SimRefund<WireRefund | WireDevolucao>;

/** A subscription as the simulator keeps it: the wire object, and whether its hosted checkout was completed. */
export type SimSubscription = WireSubscription & { checkout_completed: boolean };

export const publicSubscription = (s: SimSubscription): WireSubscription => {
  const { checkout_completed: _ignored, ...wire } = s;
  return wire;
};

export class GatewayAState {
  readonly qrImages = new QrImages();
  readonly payments = new Map<string, WirePayment>();
  readonly subscriptions = new Map<string, SimSubscription>();
  readonly idempotency = new Map<string, string>();
  /** What the hosted page shows beyond the wire object: the order description and the cardholder to prefill. */
  readonly pageInfo = new Map<string, { description: string | null; customerName: string }>();
  readonly created = { payments: 0, subscriptions: 0, subscriptionCharges: 0, refunds: 0 };
  /** Card refunds (`re_…`) and Pix devoluções (by their id; their rtrId as an alias). */
  readonly refunds = new RefundLedger<WireRefund | WireDevolucao>();
  /** Where this run listens, for the checkout and QR addresses it hands out. */
  baseUrl = '';
  readonly webhooks: WebhookDispatcher;

  constructor(
    readonly credentials: GatewayACredentials,
    webhookUrl: string | null,
  ) {
    this.webhooks = new WebhookDispatcher(webhookUrl, (body) => {
      const t = now();
      return { [SIGNATURE_HEADER.toLowerCase()]: `t=${t},v1=${hmacSha256(credentials.webhookSecret, `${t}.${body}`, 'hex')}` };
    });
  }

  emit(type: string, object: unknown): void {
    this.webhooks.emit(type, { id: newId('evt_'), type, created: now(), data: { object } });
  }

  payment(ref: string): WirePayment {
    return found(this.payments, ref, 'payment');
  }

  subscription(ref: string): SimSubscription {
    return found(this.subscriptions, ref, 'subscription');
  }

  setPayment(payment: WirePayment, changes: Partial<WirePayment>): void {
    Object.assign(payment, changes);
    // A payment that succeeded says when (a status forced by a control: now).
    if (payment.status === 'succeeded') payment.paid_at ??= now();
    // A Pix that was paid has the end-to-end id of its transaction, which its devoluções name.
    if (payment.pix && payment.status === 'succeeded' && !payment.pix.end_to_end_id) payment.pix.end_to_end_id = pixTransactionId('E', SANDBOX_ISPB);
    this.emit('payment.updated', payment);
  }

  paymentByEndToEndId(endToEndId: string): WirePayment | undefined {
    for (const payment of this.payments.values()) if (payment.pix?.end_to_end_id === endToEndId) return payment;
    return undefined;
  }

  /** The wire status word of a refund in a state. */
  static refundStatus(refund: WireRefund | WireDevolucao, state: SimRefundState): string {
    return refund.object === 'refund' ? CARD_REFUND_STATUS[state] : DEVOLUCAO_STATUS[state];
  }

  /** Settles or fails a refund, and notifies (`refund.updated` / `pix_devolucao.updated`). */
  moveRefund(refund: GatewayARefund, state: SimRefundState, failureReason: string | null = null): void {
    refund.state = state;
    this.setRefundWire(refund, GatewayAState.refundStatus(refund.wire, state), failureReason);
  }

  /** Writes a raw status (known or not) on the wire object and notifies. */
  setRefundWire(refund: GatewayARefund, rawStatus: string, failureReason: string | null = null): void {
    const wire = refund.wire;
    wire.status = rawStatus;
    wire.failure_reason = failureReason;
    if (wire.object === 'pix_devolucao') wire.settled_at = refund.state === 'succeeded' ? now() : null;
    this.emit(wire.object === 'refund' ? 'refund.updated' : 'pix_devolucao.updated', wire);
  }

  newCharge(subscription: WireSubscription, status: string): WirePayment {
    const charge: WirePayment = {
      id: newId('pi_'),
      object: 'payment',
      amount: subscription.amount,
      currency: 'brl',
      method: 'card',
      status,
      installments: 1,
      checkout_url: null,
      pix: null,
      card: status === 'succeeded' ? { ...DEFAULT_CARD } : null,
      subscription: subscription.id,
      return_url: null,
      paid_at: status === 'succeeded' ? now() : null,
      created: now(),
    };
    this.payments.set(charge.id, charge);
    this.created.subscriptionCharges += 1;
    return charge;
  }

  setSubscription(subscription: WireSubscription & { checkout_completed: boolean }, changes: Partial<WireSubscription>): void {
    const before = subscription.status;
    Object.assign(subscription, changes);
    if (before !== subscription.status) {
      this.emit(subscription.status === 'canceled' ? 'subscription.deleted' : 'subscription.updated', publicSubscription(subscription));
    }
  }
}
