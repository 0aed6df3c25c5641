/**
 * gateway_c's sandbox state: what the simulated gateway holds in memory (its
 * plans, checkout links, subscriptions, charges, idempotency keys, what its
 * hosted pages show) and the changes that also notify, as the real
 * gateway's webhooks would. The wire routes (routes.ts) and the operator's
 * actions (actions.ts) both work on it.
 */
import { DEFAULT_CARD, found, newId } from '../simulator/fixtures';
import { SimControlError } from '../simulator/server';
import { RefundLedger, type SimRefund, type SimRefundState } from '../simulator/refunds';
import { WebhookDispatcher } from '../simulator/webhooks';
import { hmacSha256 } from '../../gateways/signing';
import {
  SIGNATURE_HEADER,
  type GatewayCCredentials,
  type WireCharge,
  type WireCheckoutLink,
  type WirePlan,
  type WireRefund,
  type WireSubscription,
} from '../../gateways/gateway_c/wire';

export const LINK_LIFETIME_MS = 24 * 3_600_000;
/** Statuses in which the customer or the gateway can still act. */
export const OPEN_LINK = ['open', 'processing'];
export const OPEN_SUBSCRIPTION = ['trialing', 'active', 'past_due', 'unpaid'];

/** A refund's word on gateway_c's wire for each state. */
export const REFUND_STATUS: Record<SimRefundState, string> = { pending: 'pending', succeeded: 'succeeded', failed: 'failed' };
export type GatewayCRefund = SimRefund<WireRefund>;

/** Plans exist at the gateway before any subscription; these are seeded in every simulator. */
export const SEEDED_PLANS: readonly WirePlan[] = [
  { id: 'plan_monthly_basic', name: 'Basic (monthly)', amount_cents: 2990, interval: 'monthly', trial_days: 0 },
  { id: 'plan_monthly_trial', name: 'Basic with 14-day trial', amount_cents: 2990, interval: 'monthly', trial_days: 14 },
  { id: 'plan_yearly_pro', name: 'Pro (yearly)', amount_cents: 29900, interval: 'yearly', trial_days: 0 },
];

export class GatewayCState {
  readonly plans = new Map(SEEDED_PLANS.map((plan) => [plan.id, plan]));
  readonly links = new Map<string, WireCheckoutLink>();
  readonly subscriptions = new Map<string, WireSubscription>();
  readonly charges = new Map<string, WireCharge>();
  readonly idempotency = new Map<string, string>();
  /** What the hosted page shows beyond the wire object. */
  readonly pageInfo = new Map<string, { description: string | null; customerName: string }>();
  /** Subscription links whose next deactivation races a checkout completing (raceNextDeactivation). */
  readonly racingLinks = new Set<string>();
  readonly created = { payments: 0, subscriptions: 0, subscriptionCharges: 0, refunds: 0 };
  /** Refunds (`rf_…`), per charge: a charge is refunded only in full. */
  readonly refunds = new RefundLedger<WireRefund>();
  /** Where this run listens, for the checkout links it hands out. */
  baseUrl = '';
  readonly webhooks: WebhookDispatcher;

  constructor(
    readonly credentials: GatewayCCredentials,
    webhookUrl: string | null,
  ) {
    this.webhooks = new WebhookDispatcher(webhookUrl, (body) => ({
      [SIGNATURE_HEADER.toLowerCase()]: hmacSha256(credentials.webhookSecret, body, 'base64'),
    }));
  }

  emit(event: string, data: Record<string, unknown>): void {
    this.webhooks.emit(event, { id: newId('wh_'), event, occurred_at: new Date().toISOString(), data });
  }

  /** A payment action names a single checkout link. */
  singleLink(ref: string): WireCheckoutLink {
    const link = found(this.links, ref, 'checkout link');
    if (link.type !== 'single') throw new SimControlError(409, `${ref} is a subscription checkout link`);
    return link;
  }

  setLink(link: WireCheckoutLink, changes: Partial<WireCheckoutLink>): void {
    Object.assign(link, changes);
    this.emit('checkout_link.updated', { checkout_link: link });
  }

  setSubscription(subscription: WireSubscription, changes: Partial<WireSubscription>): void {
    Object.assign(subscription, changes);
    this.emit('subscription.updated', { subscription });
  }

  /** A subscription action names the `sub_` or the `pl_` it came from. */
  subscriptionFor(ref: string): WireSubscription {
    const viaLink = this.links.get(ref)?.subscription_id;
    return found(this.subscriptions, viaLink ?? ref, 'subscription');
  }

  /** The single checkout link a charge paid, if any (a subscription cycle's charge has none). */
  linkOfCharge(chargeId: string): WireCheckoutLink | undefined {
    for (const link of this.links.values()) if (link.charge?.id === chargeId) return link;
    return undefined;
  }

  /** Settles or fails a refund, and notifies `refund.updated`. */
  moveRefund(refund: GatewayCRefund, state: SimRefundState, failureReason: string | null = null): void {
    refund.state = state;
    this.setRefundWire(refund, REFUND_STATUS[state], failureReason);
  }

  /** Writes a raw status (known or not) and notifies. */
  setRefundWire(refund: GatewayCRefund, rawStatus: string, failureReason: string | null = null): void {
    Object.assign(refund.wire, { status: rawStatus, failure_reason: failureReason, updated_at: new Date().toISOString() });
    this.emit('refund.updated', { refund: refund.wire });
  }

  planOf(subscription: WireSubscription): WirePlan {
    return this.plans.get(subscription.plan_id) ?? SEEDED_PLANS[0]!;
  }

  charge(subscription: WireSubscription, status: 'paid' | 'failed'): WireCharge {
    const record: WireCharge = {
      id: newId('ch_'),
      status,
      amount_cents: this.planOf(subscription).amount_cents,
      subscription_id: subscription.id,
      card: status === 'paid' ? { brand: DEFAULT_CARD.brand, last_four: DEFAULT_CARD.last4 } : null,
      paid_at: status === 'paid' ? new Date().toISOString() : null,
      created_at: new Date().toISOString(),
    };
    this.charges.set(record.id, record);
    this.created.subscriptionCharges += 1;
    return record;
  }
}
