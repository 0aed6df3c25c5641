/**
 * The one interface every gateway adapter implements. The service talks to
 * gateways only through it, so routing, persistence and outbound events never
 * see a gateway's wire format. Amounts are integer cents; documents are digits.
 */
import type {
  GatewayName,
  PaymentMethod,
  PaymentStatus,
  SubscriptionInterval,
  SubscriptionStatus,
} from '../contract/enums';
import type { GatewayTransport } from './http-client';

/** What a gateway can do, so routing and the API can refuse before calling it. */
export interface GatewayCapabilities {
  methods: readonly PaymentMethod[];
  maxInstallments: number;
  /** false: the API answers 501 `not_implemented` for payment cancel. */
  paymentCancel: boolean;
  /** false: `atPeriodEnd=true` is `invalid_input` on `['atPeriodEnd']`. */
  subscriptionCancelAtPeriodEnd: boolean;
  phoneRequiredForCard: boolean;
  phoneRequiredForSubscription: boolean;
  /** true: `gateway.<name>.planId` is required to create a subscription. */
  planIdRequired: boolean;
  /**
   * What a paid payment's refund may be (decision 18): `partial` any amount up
   * to what is refundable, `full` only the whole payment at once (a smaller
   * amount answers 501 `not_implemented`), `none` no refund at all (501).
   */
  refunds: 'partial' | 'full' | 'none';
}

export interface GatewayCustomer {
  name: string;
  email: string;
  /** CPF or CNPJ, digits only (the service strips punctuation first). */
  document: string;
  /** Any format; adapters send its digits. */
  phone?: string | null;
}

export interface CreatePaymentInput {
  /** Stable across retries of the same create (derived from the externalId): the gateway dedupes on it. */
  idempotencyKey: string;
  amount: number;
  method: PaymentMethod;
  customer: GatewayCustomer;
  /** Card only; 1 when absent. */
  installments?: number;
  description?: string;
  /**
   * Absolute http(s) URL of the shop: after paying or declining at the
   * gateway-hosted checkout (card), the customer is sent back there with a
   * 303, the gateway adding its own outcome parameters (see each PROTOCOL.md).
   * A hint for the customer's browser only: the state still comes from the
   * gateway (getPayment, webhooks). Absent: the hosted page shows the result.
   */
  returnUrl?: string | null;
}

export interface PixCode {
  /** Image as a data URL, or a URL to the image. */
  qrCode: string;
  /** Copy-and-paste code. */
  qrCodeText: string;
}

export interface CardSummary {
  brand: string;
  last4: string;
}

export interface PaymentSnapshot {
  gatewayRef: string;
  status: PaymentStatus;
  /** The gateway's own word, for logs and support. */
  rawStatus: string;
  /** false when rawStatus is not in the status table: log it; status is then a safe non-final one. */
  statusKnown: boolean;
  method: PaymentMethod;
  amount: number;
  checkoutUrl: string | null;
  /** null for card, and for a Pix whose code the gateway has not handed over yet (gateway_b: sync recovers it). */
  pix: PixCode | null;
  /** Known once the customer paid through the hosted checkout. */
  card: CardSummary | null;
  /** Set when the charge is a cycle of a subscription at the gateway. */
  subscriptionRef: string | null;
  /** Pix: when the code stops being payable, where the gateway says (absent or null otherwise). */
  expiresAt?: string | null;
  /** When the gateway says the money arrived (a Pix's settlement, a charge's paid time; decision 26), ISO; absent or null when it does not say. */
  paidAt?: string | null;
}

/** A refund's state at its gateway (decision 18): `pending` until the gateway says it settled or failed. */
export type GatewayRefundStatus = 'pending' | 'succeeded' | 'failed';

export interface CreateRefundInput {
  /** Stable across retries of the same refund (derived from its externalId): the gateway dedupes on it. */
  idempotencyKey: string;
  /** The refunded payment's gatewayRef. */
  paymentRef: string;
  /** The refunded payment's method: Pix refunds follow the Pix API's devolução where the gateway has one. */
  method: PaymentMethod;
  /** Cents to give back; never more than what is refundable (the core checks first). */
  amount: number;
  /** The payment's whole amount, for gateways that refund only in full. */
  paymentAmount: number;
  reason?: string | null;
}

export interface RefundSnapshot {
  /** The gateway's refund id. */
  gatewayRef: string;
  /** The refunded payment's gatewayRef. */
  paymentRef: string;
  status: GatewayRefundStatus;
  rawStatus: string;
  /** false when rawStatus is not in the status table: log it; status is then `pending`. */
  statusKnown: boolean;
  amount: number;
  /** The gateway's reason when it refused or failed the refund, for the merchant; null otherwise. */
  failureReason: string | null;
}

export interface CreateSubscriptionInput {
  idempotencyKey: string;
  amount: number;
  interval: SubscriptionInterval;
  trialDays: number;
  customer: GatewayCustomer;
  /** Required when capabilities.planIdRequired (gateway_c); ignored elsewhere. */
  planId?: string | null;
  /** Where the hosted subscription checkout sends the customer back; as CreatePaymentInput.returnUrl. */
  returnUrl?: string | null;
}

/** A plan kept at the gateway: on gateways whose subscriptions follow a plan, it fixes the price and the interval. */
export interface GatewayPlan {
  planId: string;
  amount: number;
  interval: SubscriptionInterval;
  trialDays: number;
}

export interface SubscriptionSnapshot {
  /** gateway_c: `pl_…` until the customer completes checkout, then `sub_…`. */
  gatewayRef: string;
  status: SubscriptionStatus;
  rawStatus: string;
  statusKnown: boolean;
  checkoutUrl: string | null;
  nextBillingAt: string | null;
  trialEndsAt: string | null;
  cancelAtPeriodEnd: boolean;
  canceledAt: string | null;
}

/**
 * What deactivating a subscription's checkout link found (gateway_c).
 * - `deactivated`: the link takes no card any more (deactivated now, or it
 *   already was, or it expired); `subscription` is the link's snapshot,
 *   `status: 'canceled'`, `gatewayRef` the `pl_`.
 * - `completed`: the customer finished checkout first; `subscription` is the
 *   real subscription (`gatewayRef` `sub_…`, not canceled). Cancel it with
 *   cancelSubscription when the cancel still stands.
 * A checkout that completes in the same instant as a deactivation that
 * answered `deactivated` still produces a `sub_`, announced by a
 * `subscription_checkout_completed` event: cancel that one when it arrives.
 */
export interface CheckoutDeactivation {
  outcome: 'deactivated' | 'completed';
  subscription: SubscriptionSnapshot;
}

export interface CancelSubscriptionOptions {
  atPeriodEnd: boolean;
}

export interface InboundWebhook {
  /** Node's IncomingHttpHeaders fits; names are matched case-insensitively. */
  headers: Record<string, string | string[] | undefined>;
  /** The exact bytes received: signatures are over them, never over re-serialized JSON. */
  rawBody: Buffer;
}

interface EventBase {
  /** The gateway's event id, for deduplicating redeliveries. */
  eventId: string;
  occurredAt: string | null;
}

/** Normalized inbound events. Handlers must tolerate duplicates and any order. */
export type GatewayEvent =
  | (EventBase & {
      kind: 'payment_status';
      payment: PaymentSnapshot;
    })
  | (EventBase & {
      /** Includes moves into past_due (gateway gave up retrying), canceled, trial end. */
      kind: 'subscription_status';
      subscription: SubscriptionSnapshot;
    })
  | (EventBase & {
      /** A recurring charge settled. paid = renewal (nextBillingAt moved on); failed = payment_failed. */
      kind: 'subscription_charge';
      outcome: 'paid' | 'failed';
      subscriptionRef: string;
      /** The cycle's own charge, to create or update the local Payment. */
      payment: PaymentSnapshot;
      nextBillingAt: string | null;
    })
  | (EventBase & {
      /** A refund moved at its gateway (settled, failed, or still pending). */
      kind: 'refund_status';
      refund: RefundSnapshot;
    })
  | (EventBase & {
      /** gateway_c: the checkout link became a real subscription. */
      kind: 'subscription_checkout_completed';
      checkoutRef: string;
      subscription: SubscriptionSnapshot;
    });

export interface GatewayAdapter {
  readonly name: GatewayName;
  readonly capabilities: GatewayCapabilities;
  /**
   * The resolution of the clock that stamps this gateway's webhook event
   * times (`occurredAt`), in milliseconds: 1000 where the protocol gives whole
   * seconds. Event times are compared with what was applied before at this
   * resolution (domain/report-order.ts).
   */
  readonly eventClockResolutionMs: number;
  createPayment(input: CreatePaymentInput): Promise<PaymentSnapshot>;
  getPayment(gatewayRef: string): Promise<PaymentSnapshot>;
  /** Fails `unsupported` (action cancel) when capabilities.paymentCancel is false. */
  cancelPayment(gatewayRef: string): Promise<PaymentSnapshot>;
  /**
   * Asks the gateway to give back part or all of a paid payment. The answer is
   * usually `pending`; the final state comes by webhook or getRefund. Fails
   * `unsupported` (action refund) where capabilities.refunds forbids the amount,
   * `refused` when the gateway declines (already refunded, not paid), and
   * `unavailable` as every call may (timeout: the refund may exist; retrying
   * with the same idempotencyKey finds it).
   */
  createRefund(input: CreateRefundInput): Promise<RefundSnapshot>;
  /** The refund's present state; `missing` when the gateway does not know it. */
  getRefund(refundRef: string, paymentRef: string): Promise<RefundSnapshot>;
  createSubscription(input: CreateSubscriptionInput): Promise<SubscriptionSnapshot>;
  getSubscription(gatewayRef: string): Promise<SubscriptionSnapshot>;
  cancelSubscription(gatewayRef: string, options: CancelSubscriptionOptions): Promise<SubscriptionSnapshot>;
  /**
   * The plan with this id, or null when the gateway has no such plan. Present
   * exactly where capabilities.planIdRequired (gateway_c); gateways without
   * plans leave it undefined (their subscriptions carry their own price).
   */
  getPlan?(planId: string): Promise<GatewayPlan | null>;
  /**
   * Closes the checkout link of a subscription whose gatewayRef is still the
   * link (`pl_…`) so the customer can no longer complete it. Present where
   * subscriptions start as a checkout link (gateway_c); undefined elsewhere.
   * Safe to repeat. Fails `unavailable` when the ref is not a
   * subscription checkout link or the gateway fails.
   */
  deactivateSubscriptionCheckout?(checkoutRef: string): Promise<CheckoutDeactivation>;
  /**
   * Authenticates, then normalizes. Throws WebhookRejectedError when the
   * request is not genuine or unreadable; may fail `unavailable`
   * when it must confirm the event by fetching (gateway_b). Unknown event
   * types give an empty list.
   */
  parseWebhook(input: InboundWebhook): Promise<GatewayEvent[]>;
  /** Releases pooled connections. */
  close(): Promise<void>;
}

export interface GatewayAdapterConfig extends GatewayTransport {
  baseUrl: string;
  /** Validated by each gateway's own schema. */
  credentials: unknown;
}

export type GatewayAdapterFactory = (config: GatewayAdapterConfig) => GatewayAdapter;
