/**
 * gateway_c: key + secret headers, everything starts as a checkout link
 * (`pl_…`); subscription links become subscriptions (`sub_…`) when the
 * customer completes checkout; webhooks signed HMAC-SHA256 base64 over the raw body.
 */
import type {
  CancelSubscriptionOptions,
  CheckoutDeactivation,
  CreatePaymentInput,
  CreateRefundInput,
  CreateSubscriptionInput,
  GatewayAdapter,
  GatewayAdapterConfig,
  GatewayCapabilities,
  GatewayCustomer,
  GatewayEvent,
  GatewayPlan,
  InboundWebhook,
  PaymentSnapshot,
  RefundSnapshot,
  SubscriptionSnapshot,
} from '../adapter';
import { parseCredentials } from '../credentials';
import { phoneDigits } from '../customer';
import { GatewayFailure, WebhookRejectedError } from '../errors';
import { GatewayHttpClient } from '../http-client';
import { expectAnswer, expectFound, type FieldMapping } from '../responses';
import { hmacSha256, headerValue, safeEqual } from '../signing';
import { mapStatus } from '../status-table';
import { parseWebhookBody, parseWebhookObject } from '../webhook-payload';
import { paymentStatusTable, refundStatusTable, subscriptionLinkStatusTable, subscriptionStatusTable } from './status-map';
import {
  chargeEventData,
  chargeSchema,
  checkoutLinkEventData,
  checkoutLinkSchema,
  credentialsSchema,
  errorSchema,
  planSchema,
  refundEventData,
  refundSchema,
  SIGNATURE_HEADER,
  subscriptionCreatedData,
  subscriptionEventData,
  subscriptionSchema,
  webhookSchema,
  type GatewayCCredentials,
  type WireCharge,
  type WireCheckoutLink,
  type WireRefund,
  type WireSubscription,
} from './wire';

const PROVIDER = 'gateway_c';

export const gatewayCCapabilities: GatewayCapabilities = {
  // Card only: gateway_c has no Pix.
  methods: ['card'],
  maxInstallments: 24,
  paymentCancel: true,
  subscriptionCancelAtPeriodEnd: false,
  phoneRequiredForCard: true,
  phoneRequiredForSubscription: true,
  planIdRequired: true,
  // gateway_c refunds a card charge only as a whole.
  refunds: 'full',
};

const FIELD_PATHS: Record<string, FieldMapping> = {
  amount_cents: { path: ['amount'], message: 'The gateway refused the amount.' },
  installments: { path: ['card', 'installments'], message: 'gateway_c accepts 1 to 24 installments.' },
  plan_id: { path: ['gateway', 'gateway_c', 'planId'], message: 'gateway_c has no such plan.' },
  'customer.name': { path: ['customer', 'name'], message: 'The gateway refused the customer name.' },
  'customer.email': { path: ['customer', 'email'], message: 'The gateway refused the customer e-mail.' },
  'customer.document': { path: ['customer', 'document'], message: 'The gateway refused the customer document.' },
  'customer.phone': {
    path: ['customer', 'phone'],
    message: 'gateway_c requires a phone with area code (at least 10 digits).',
  },
  redirect_url: { path: ['returnUrl'], message: 'The gateway refused the return URL: it must be an absolute http(s) URL.' },
};

const refusal = {
  fields: (body: unknown) => {
    const parsed = errorSchema.safeParse(body);
    return parsed.success && parsed.data.errors ? parsed.data.errors.map((error) => error.field) : null;
  },
  map: FIELD_PATHS,
};

/** gateway_c's refusals of a refund (422 `code`), on our request: the amount, or the payment as a whole. */
const REFUND_REFUSALS: Record<string, FieldMapping> = {
  charge_already_refunded: { path: ['amount'], message: 'gateway_c says the payment was already refunded.' },
  charge_not_paid: { path: [], message: 'gateway_c says the payment is not paid there, so nothing can be refunded.' },
};

const refundRefusal = {
  fields: (body: unknown) => {
    const parsed = errorSchema.safeParse(body);
    if (!parsed.success) return null;
    if (Object.hasOwn(REFUND_REFUSALS, parsed.data.code)) return [parsed.data.code];
    return parsed.data.errors ? parsed.data.errors.map((error) => error.field) : null;
  },
  map: {
    ...REFUND_REFUSALS,
    amount_cents: { path: ['amount'], message: 'gateway_c refused the amount: it refunds a payment only in full, once.' },
    reason: { path: ['reason'], message: 'The gateway refused the reason.' },
  },
};

function refundSnapshot(refund: WireRefund): RefundSnapshot {
  const mapped = mapStatus(refundStatusTable, refund.status);
  return {
    gatewayRef: refund.id,
    // Our payment is the single link, or the cycle's charge when the charge belongs to a subscription.
    paymentRef: refund.checkout_link_id ?? refund.charge_id,
    status: mapped.status,
    rawStatus: refund.status,
    statusKnown: mapped.known,
    amount: refund.amount_cents,
    failureReason: mapped.status === 'failed' ? refund.failure_reason : null,
  };
}

function chargeSnapshot(charge: WireCharge): PaymentSnapshot {
  const mapped = mapStatus(paymentStatusTable, charge.status);
  return {
    gatewayRef: charge.id,
    status: mapped.status,
    rawStatus: charge.status,
    statusKnown: mapped.known,
    method: 'card',
    amount: charge.amount_cents,
    checkoutUrl: null,
    pix: null,
    card: charge.card ? { brand: charge.card.brand, last4: charge.card.last_four } : null,
    subscriptionRef: charge.subscription_id,
    paidAt: charge.paid_at,
  };
}

function linkPaymentSnapshot(link: WireCheckoutLink): PaymentSnapshot {
  const mapped = mapStatus(paymentStatusTable, link.status);
  const card = link.charge?.card;
  return {
    gatewayRef: link.id,
    status: mapped.status,
    rawStatus: link.status,
    statusKnown: mapped.known,
    method: 'card',
    amount: link.amount_cents,
    checkoutUrl: link.url,
    pix: null,
    card: card ? { brand: card.brand, last4: card.last_four } : null,
    subscriptionRef: null,
    // The charge a paid single link holds says when it was paid.
    paidAt: link.charge?.paid_at ?? null,
  };
}

function subscriptionSnapshot(subscription: WireSubscription): SubscriptionSnapshot {
  const mapped = mapStatus(subscriptionStatusTable, subscription.status);
  return {
    gatewayRef: subscription.id,
    status: mapped.status,
    rawStatus: subscription.status,
    statusKnown: mapped.known,
    // The card is registered once the subscription exists; the link's URL is spent.
    checkoutUrl: null,
    nextBillingAt: mapped.status === 'canceled' ? null : subscription.current_period_end,
    trialEndsAt: subscription.trial_ends_at,
    cancelAtPeriodEnd: false,
    canceledAt: subscription.canceled_at,
  };
}

function linkSubscriptionSnapshot(link: WireCheckoutLink): SubscriptionSnapshot {
  const mapped = mapStatus(subscriptionLinkStatusTable, link.status);
  const trial = mapped.status === 'active' && (link.plan?.trial_days ?? 0) > 0;
  return {
    gatewayRef: link.id,
    status: trial ? 'trialing' : mapped.status,
    rawStatus: link.status,
    statusKnown: mapped.known,
    checkoutUrl: link.url,
    nextBillingAt: null,
    trialEndsAt: null,
    cancelAtPeriodEnd: false,
    canceledAt: null,
  };
}

const customerBody = (customer: GatewayCustomer) => ({
  name: customer.name,
  email: customer.email,
  document: customer.document,
  phone: phoneDigits(customer.phone),
});

const isSubscriptionRef = (ref: string) => ref.startsWith('sub_');
const path = (ref: string) => encodeURIComponent(ref);

export class GatewayCAdapter implements GatewayAdapter {
  readonly name = PROVIDER;
  readonly capabilities = gatewayCCapabilities;
  /** `occurred_at` is an ISO 8601 time with milliseconds. */
  readonly eventClockResolutionMs = 1;
  private readonly http: GatewayHttpClient;
  private readonly credentials: GatewayCCredentials;

  constructor(config: GatewayAdapterConfig) {
    this.credentials = parseCredentials(PROVIDER, credentialsSchema, config.credentials);
    this.http = new GatewayHttpClient(PROVIDER, config.baseUrl, config, {
      'x-api-key': this.credentials.apiKey,
      'x-api-secret': this.credentials.apiSecret,
    });
  }

  async createPayment(input: CreatePaymentInput): Promise<PaymentSnapshot> {
    if (input.method !== 'card') {
      throw GatewayFailure.unsupported(PROVIDER, { method: input.method });
    }
    const response = await this.http.send({
      method: 'POST',
      path: '/v2/checkout-links',
      headers: { 'x-idempotency-key': input.idempotencyKey },
      body: {
        type: 'single',
        amount_cents: input.amount,
        installments: input.installments ?? 1,
        ...(input.description ? { description: input.description } : {}),
        customer: customerBody(input.customer),
        ...(input.returnUrl ? { redirect_url: input.returnUrl } : {}),
      },
    });
    const link = expectAnswer(PROVIDER, response, checkoutLinkSchema, 'create checkout link', refusal);
    return linkPaymentSnapshot(link);
  }

  async getPayment(gatewayRef: string): Promise<PaymentSnapshot> {
    if (gatewayRef.startsWith('ch_')) {
      const response = await this.http.send({ method: 'GET', path: `/v2/charges/${path(gatewayRef)}` });
      return chargeSnapshot(expectFound(PROVIDER, response, chargeSchema, 'get charge'));
    }
    const link = await this.fetchLink(gatewayRef);
    if (link.type !== 'single') throw GatewayFailure.unavailable(PROVIDER, 'payment ref names a subscription checkout link');
    return linkPaymentSnapshot(link);
  }

  /** Deactivates an unpaid single checkout link. */
  async cancelPayment(gatewayRef: string): Promise<PaymentSnapshot> {
    const response = await this.http.send({ method: 'POST', path: `/v2/checkout-links/${path(gatewayRef)}/deactivate` });
    return linkPaymentSnapshot(expectAnswer(PROVIDER, response, checkoutLinkSchema, 'deactivate checkout link'));
  }

  /**
   * `POST /v2/refunds` of the link's (or cycle's) charge under the refund's
   * idempotency key. gateway_c gives back a charge only in full: a smaller
   * amount is refused here, before any call.
   */
  async createRefund(input: CreateRefundInput): Promise<RefundSnapshot> {
    if (input.method !== 'card') throw GatewayFailure.unsupported(PROVIDER, { method: input.method });
    if (input.amount !== input.paymentAmount) throw GatewayFailure.unsupported(PROVIDER, { action: 'refund' });
    const response = await this.http.send({
      method: 'POST',
      path: '/v2/refunds',
      headers: { 'x-idempotency-key': input.idempotencyKey },
      body: {
        ...(input.paymentRef.startsWith('ch_') ? { charge_id: input.paymentRef } : { checkout_link_id: input.paymentRef }),
        amount_cents: input.amount,
        ...(input.reason ? { reason: input.reason } : {}),
      },
    });
    // Not found: the gateway does not know the payment, as on a read.
    if (response.status === 404) throw GatewayFailure.missing(PROVIDER, 'create refund');
    return refundSnapshot(expectAnswer(PROVIDER, response, refundSchema, 'create refund', refundRefusal));
  }

  async getRefund(refundRef: string): Promise<RefundSnapshot> {
    const response = await this.http.send({ method: 'GET', path: `/v2/refunds/${path(refundRef)}` });
    return refundSnapshot(expectFound(PROVIDER, response, refundSchema, 'get refund'));
  }

  async createSubscription(input: CreateSubscriptionInput): Promise<SubscriptionSnapshot> {
    if (!input.planId) {
      throw GatewayFailure.refused(PROVIDER, [{ path: ['gateway', 'gateway_c', 'planId'], message: 'gateway_c needs the id of a plan created at the gateway.' }]);
    }
    const response = await this.http.send({
      method: 'POST',
      path: '/v2/checkout-links',
      headers: { 'x-idempotency-key': input.idempotencyKey },
      body: {
        type: 'subscription',
        plan_id: input.planId,
        customer: customerBody(input.customer),
        ...(input.returnUrl ? { redirect_url: input.returnUrl } : {}),
      },
    });
    return linkSubscriptionSnapshot(expectAnswer(PROVIDER, response, checkoutLinkSchema, 'create checkout link', refusal));
  }

  /** A `pl_` ref whose checkout was completed reports the real subscription (its `sub_` ref). */
  async getSubscription(gatewayRef: string): Promise<SubscriptionSnapshot> {
    if (isSubscriptionRef(gatewayRef)) return subscriptionSnapshot(await this.fetchSubscription(gatewayRef));
    const link = await this.fetchLink(gatewayRef);
    if (link.type !== 'subscription') throw GatewayFailure.unavailable(PROVIDER, 'subscription ref names a single checkout link');
    if (link.subscription_id) return subscriptionSnapshot(await this.fetchSubscription(link.subscription_id));
    return linkSubscriptionSnapshot(link);
  }

  async cancelSubscription(gatewayRef: string, options: CancelSubscriptionOptions): Promise<SubscriptionSnapshot> {
    if (options.atPeriodEnd) {
      throw GatewayFailure.refused(PROVIDER, [{ path: ['atPeriodEnd'], message: 'gateway_c cancels subscriptions immediately only.' }]);
    }
    let subscriptionRef = gatewayRef;
    if (!isSubscriptionRef(gatewayRef)) {
      // Checkout never completed: deactivating the link is the whole cancel. If the customer completed it
      // first, the real subscription is canceled instead.
      const deactivation = await this.deactivateSubscriptionCheckout(gatewayRef);
      if (deactivation.outcome === 'deactivated') return deactivation.subscription;
      subscriptionRef = deactivation.subscription.gatewayRef;
    }
    const response = await this.http.send({ method: 'POST', path: `/v2/subscriptions/${path(subscriptionRef)}/cancel` });
    return subscriptionSnapshot(expectAnswer(PROVIDER, response, subscriptionSchema, 'cancel subscription'));
  }

  async parseWebhook(input: InboundWebhook): Promise<GatewayEvent[]> {
    const signature = headerValue(input.headers, SIGNATURE_HEADER);
    if (!signature) throw new WebhookRejectedError(PROVIDER, 'missing_signature');
    const expected = hmacSha256(this.credentials.webhookSecret, input.rawBody, 'base64');
    if (!safeEqual(signature.trim(), expected)) throw new WebhookRejectedError(PROVIDER, 'invalid_signature');
    const event = parseWebhookBody(PROVIDER, input.rawBody, webhookSchema);
    const base = { eventId: event.id, occurredAt: event.occurred_at };
    switch (event.event) {
      case 'checkout_link.updated': {
        const { checkout_link: link } = parseWebhookObject(PROVIDER, event.data, checkoutLinkEventData);
        return link.type === 'single'
          ? [{ ...base, kind: 'payment_status', payment: linkPaymentSnapshot(link) }]
          : [{ ...base, kind: 'subscription_status', subscription: linkSubscriptionSnapshot(link) }];
      }
      case 'subscription.created': {
        const data = parseWebhookObject(PROVIDER, event.data, subscriptionCreatedData);
        return [
          { ...base, kind: 'subscription_checkout_completed', checkoutRef: data.checkout_link_id, subscription: subscriptionSnapshot(data.subscription) },
        ];
      }
      case 'subscription.updated': {
        const data = parseWebhookObject(PROVIDER, event.data, subscriptionEventData);
        return [{ ...base, kind: 'subscription_status', subscription: subscriptionSnapshot(data.subscription) }];
      }
      case 'charge.paid':
      case 'charge.failed': {
        const data = parseWebhookObject(PROVIDER, event.data, chargeEventData);
        return [
          {
            ...base,
            kind: 'subscription_charge',
            outcome: event.event === 'charge.paid' ? 'paid' : 'failed',
            subscriptionRef: data.subscription.id,
            payment: chargeSnapshot(data.charge),
            nextBillingAt: data.subscription.current_period_end,
          },
        ];
      }
      case 'refund.updated': {
        const data = parseWebhookObject(PROVIDER, event.data, refundEventData);
        return [{ ...base, kind: 'refund_status', refund: refundSnapshot(data.refund) }];
      }
      default:
        return [];
    }
  }

  close(): Promise<void> {
    return this.http.close();
  }

  /**
   * Closes a subscription's checkout link (`pl_`). An open link is deactivated; one already deactivated or
   * expired answers the same `deactivated` outcome (a repeat is harmless); one whose checkout completed
   * reports the `sub_` as `completed`, for the caller to cancel. The link is read first so a payment link is
   * never deactivated by mistake, and read again when the deactivation loses a race with the checkout.
   */
  async deactivateSubscriptionCheckout(checkoutRef: string): Promise<CheckoutDeactivation> {
    if (isSubscriptionRef(checkoutRef)) throw GatewayFailure.unavailable(PROVIDER, 'a sub_ ref has no checkout link to deactivate');
    let link = await this.fetchLink(checkoutRef);
    if (link.type !== 'subscription') throw GatewayFailure.unavailable(PROVIDER, 'subscription ref names a single checkout link');
    if (link.status === 'open') {
      const response = await this.http.send({ method: 'POST', path: `/v2/checkout-links/${path(checkoutRef)}/deactivate` });
      // 409: no longer open, most likely completed in the meantime; the link says what it became.
      link = response.status === 409 ? await this.fetchLink(checkoutRef) : expectAnswer(PROVIDER, response, checkoutLinkSchema, 'deactivate checkout link');
    }
    if (link.subscription_id) {
      return { outcome: 'completed', subscription: subscriptionSnapshot(await this.fetchSubscription(link.subscription_id)) };
    }
    const snapshot = linkSubscriptionSnapshot(link);
    if (snapshot.status !== 'canceled') throw GatewayFailure.unavailable(PROVIDER, `checkout link ${checkoutRef} stayed ${link.status}`);
    return { outcome: 'deactivated', subscription: snapshot };
  }

  async getPlan(planId: string): Promise<GatewayPlan | null> {
    const response = await this.http.send({ method: 'GET', path: `/v2/plans/${path(planId)}` });
    if (response.status === 404) return null;
    const plan = expectAnswer(PROVIDER, response, planSchema, 'get plan');
    return { planId: plan.id, amount: plan.amount_cents, interval: plan.interval, trialDays: plan.trial_days };
  }

  private async fetchLink(gatewayRef: string): Promise<WireCheckoutLink> {
    const response = await this.http.send({ method: 'GET', path: `/v2/checkout-links/${path(gatewayRef)}` });
    return expectFound(PROVIDER, response, checkoutLinkSchema, 'get checkout link');
  }

  private async fetchSubscription(gatewayRef: string): Promise<WireSubscription> {
    const response = await this.http.send({ method: 'GET', path: `/v2/subscriptions/${path(gatewayRef)}` });
    return expectFound(PROVIDER, response, subscriptionSchema, 'get subscription');
  }
}
