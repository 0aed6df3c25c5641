/** gateway_a: JSON REST, bearer secret key, Idempotency-Key header, `t=…,v1=…` signed webhooks. */
import type {
  CreatePaymentInput,
  CreateRefundInput,
  CreateSubscriptionInput,
  GatewayAdapter,
  GatewayAdapterConfig,
  GatewayCapabilities,
  GatewayCustomer,
  GatewayEvent,
  InboundWebhook,
  PaymentSnapshot,
  RefundSnapshot,
  SubscriptionSnapshot,
  CancelSubscriptionOptions,
} from '../adapter';
import { parseCredentials } from '../credentials';
import { phoneDigits } from '../customer';
import { GatewayFailure, WebhookRejectedError } from '../errors';
import { GatewayHttpClient, type GatewayResponse } from '../http-client';
import { devolucaoId, EndToEndIds } from '../pix-devolucao';
import { expectAnswer, expectFound, unixToIso, type FieldMapping } from '../responses';
import { hmacSha256, headerValue, safeEqual } from '../signing';
import { parseWebhookBody, parseWebhookObject } from '../webhook-payload';
import { mapStatus } from '../status-table';
import { devolucaoStatusTable, paymentStatusTable, refundStatusTable, subscriptionStatusTable } from './status-map';
import {
  credentialsSchema,
  devolucaoSchema,
  errorSchema,
  eventSchema,
  invoiceSchema,
  paymentSchema,
  refundSchema,
  SIGNATURE_HEADER,
  SIGNATURE_TOLERANCE_SECONDS,
  subscriptionSchema,
  type GatewayACredentials,
  type WireDevolucao,
  type WirePayment,
  type WireRefund,
  type WireSubscription,
} from './wire';

const PROVIDER = 'gateway_a';

export const gatewayACapabilities: GatewayCapabilities = {
  methods: ['pix', 'card'],
  maxInstallments: 12,
  paymentCancel: true,
  subscriptionCancelAtPeriodEnd: false,
  phoneRequiredForCard: false,
  phoneRequiredForSubscription: false,
  planIdRequired: false,
  refunds: 'partial',
};

/** gateway_a's customer object: the document as `tax_id`, the phone as digits. */
const wireCustomer = (customer: GatewayCustomer) => ({
  name: customer.name,
  email: customer.email,
  tax_id: customer.document,
  phone: phoneDigits(customer.phone) ?? undefined,
});

const FIELD_PATHS: Record<string, FieldMapping> = {
  amount: { path: ['amount'], message: 'The gateway refused the amount.' },
  installments: { path: ['card', 'installments'], message: 'gateway_a accepts 1 to 12 installments.' },
  'customer.name': { path: ['customer', 'name'], message: 'The gateway refused the customer name.' },
  'customer.email': { path: ['customer', 'email'], message: 'The gateway refused the customer e-mail.' },
  'customer.tax_id': { path: ['customer', 'document'], message: 'The gateway refused the customer document.' },
  'customer.phone': { path: ['customer', 'phone'], message: 'The gateway refused the customer phone.' },
  interval: { path: ['interval'], message: 'The gateway refused the interval.' },
  trial_days: { path: ['trialDays'], message: 'The gateway refused the trial days.' },
  return_url: { path: ['returnUrl'], message: 'The gateway refused the return URL: it must be an absolute http(s) URL.' },
};

const refusal = {
  fields: (body: unknown) => {
    const parsed = errorSchema.safeParse(body);
    return parsed.success && parsed.data.error.param ? [parsed.data.error.param] : null;
  },
  map: FIELD_PATHS,
};

/** gateway_a's refusals of a refund (422 `code`), on our request: the amount, or the payment as a whole. */
const REFUND_REFUSALS: Record<string, FieldMapping> = {
  amount_too_large: { path: ['amount'], message: 'gateway_a refused the amount: it is more than the payment has left to refund there.' },
  charge_already_refunded: { path: ['amount'], message: 'gateway_a says the payment was already refunded in full.' },
  payment_not_paid: { path: [], message: 'gateway_a says the payment is not paid there, so nothing can be refunded.' },
};

const refundRefusal = {
  fields: (body: unknown) => {
    const parsed = errorSchema.safeParse(body);
    if (!parsed.success) return null;
    const { code, param } = parsed.data.error;
    if (code && Object.hasOwn(REFUND_REFUSALS, code)) return [code];
    return param ? [param] : null;
  },
  map: { ...REFUND_REFUSALS, amount: FIELD_PATHS.amount!, reason: { path: ['reason'], message: 'The gateway refused the reason.' }, description: { path: ['reason'], message: 'The gateway refused the reason.' } },
};

/** A refund call naming a payment the gateway does not know: the reference leads nowhere, as on a read. */
function expectRefund<T>(response: GatewayResponse, schema: Parameters<typeof expectAnswer<T>>[2], what: string): T {
  if (response.status === 404) throw GatewayFailure.missing(PROVIDER, what);
  return expectAnswer(PROVIDER, response, schema, what, refundRefusal);
}

export function toRefundSnapshot(refund: WireRefund): RefundSnapshot {
  const mapped = mapStatus(refundStatusTable, refund.status);
  return {
    gatewayRef: refund.id,
    paymentRef: refund.payment,
    status: mapped.status,
    rawStatus: refund.status,
    statusKnown: mapped.known,
    amount: refund.amount,
    failureReason: mapped.status === 'failed' ? refund.failure_reason : null,
  };
}

export function toDevolucaoSnapshot(devolucao: WireDevolucao): RefundSnapshot {
  const mapped = mapStatus(devolucaoStatusTable, devolucao.status);
  return {
    gatewayRef: devolucao.id,
    paymentRef: devolucao.payment,
    status: mapped.status,
    rawStatus: devolucao.status,
    statusKnown: mapped.known,
    amount: devolucao.amount,
    failureReason: mapped.status === 'failed' ? devolucao.failure_reason : null,
  };
}

/** Card refunds are `re_…`; anything else we hold is a devolução id (hex, see pix-devolucao.ts). */
const isCardRefund = (refundRef: string) => refundRef.startsWith('re_');

export function toPaymentSnapshot(payment: WirePayment): PaymentSnapshot {
  const mapped = mapStatus(paymentStatusTable, payment.status);
  return {
    gatewayRef: payment.id,
    status: mapped.status,
    rawStatus: payment.status,
    statusKnown: mapped.known,
    method: payment.method,
    amount: payment.amount,
    checkoutUrl: payment.checkout_url,
    pix: payment.pix ? { qrCode: payment.pix.qr_code_url, qrCodeText: payment.pix.copy_paste } : null,
    card: payment.card ? { brand: payment.card.brand, last4: payment.card.last4 } : null,
    subscriptionRef: payment.subscription,
    expiresAt: unixToIso(payment.pix?.expires_at ?? null),
    paidAt: unixToIso(payment.paid_at),
  };
}

export function toSubscriptionSnapshot(subscription: WireSubscription): SubscriptionSnapshot {
  const mapped = mapStatus(subscriptionStatusTable, subscription.status);
  return {
    gatewayRef: subscription.id,
    status: mapped.status,
    rawStatus: subscription.status,
    statusKnown: mapped.known,
    checkoutUrl: subscription.checkout_url,
    nextBillingAt: mapped.status === 'canceled' ? null : unixToIso(subscription.current_period_end),
    trialEndsAt: unixToIso(subscription.trial_end),
    cancelAtPeriodEnd: subscription.cancel_at_period_end,
    canceledAt: unixToIso(subscription.canceled_at),
  };
}

export class GatewayAAdapter implements GatewayAdapter {
  readonly name = PROVIDER;
  readonly capabilities = gatewayACapabilities;
  /** An event's `created` is Unix seconds. */
  readonly eventClockResolutionMs = 1_000;
  private readonly http: GatewayHttpClient;
  private readonly credentials: GatewayACredentials;
  private readonly endToEndIds = new EndToEndIds();

  constructor(config: GatewayAdapterConfig) {
    this.credentials = parseCredentials(PROVIDER, credentialsSchema, config.credentials);
    this.http = new GatewayHttpClient(PROVIDER, config.baseUrl, config, {
      authorization: `Bearer ${this.credentials.secretKey}`,
    });
  }

  async createPayment(input: CreatePaymentInput): Promise<PaymentSnapshot> {
    const response = await this.http.send({
      method: 'POST',
      path: '/v1/payments',
      headers: { 'idempotency-key': input.idempotencyKey },
      body: {
        amount: input.amount,
        currency: 'brl',
        method: input.method,
        installments: input.method === 'card' ? (input.installments ?? 1) : 1,
        description: input.description,
        customer: wireCustomer(input.customer),
        return_url: input.returnUrl ?? undefined,
      },
    });
    return toPaymentSnapshot(expectAnswer(PROVIDER, response, paymentSchema, 'create payment', refusal));
  }

  async getPayment(gatewayRef: string): Promise<PaymentSnapshot> {
    return toPaymentSnapshot(await this.fetchPayment(gatewayRef));
  }

  private async fetchPayment(gatewayRef: string): Promise<WirePayment> {
    const response = await this.http.send({ method: 'GET', path: `/v1/payments/${encodeURIComponent(gatewayRef)}` });
    return this.seen(expectFound(PROVIDER, response, paymentSchema, 'get payment'));
  }

  /** A paid Pix's end-to-end id: remembered from a read or notification, else read now (null while unpaid). */
  private async endToEndIdOf(paymentRef: string): Promise<string | null> {
    return this.endToEndIds.get(paymentRef) ?? (await this.fetchPayment(paymentRef)).pix?.end_to_end_id ?? null;
  }

  private seen(payment: WirePayment): WirePayment {
    this.endToEndIds.remember(payment.id, payment.pix?.end_to_end_id);
    return payment;
  }

  async cancelPayment(gatewayRef: string): Promise<PaymentSnapshot> {
    const response = await this.http.send({ method: 'POST', path: `/v1/payments/${encodeURIComponent(gatewayRef)}/cancel` });
    return toPaymentSnapshot(expectAnswer(PROVIDER, response, paymentSchema, 'cancel payment'));
  }

  /**
   * Card: `POST /v1/refunds` under the Idempotency-Key. Pix: a devolução
   * `PUT` on the paid Pix's end-to-end id (read from the payment first) with
   * an id derived from the key. Either way a retry finds the same refund.
   */
  async createRefund(input: CreateRefundInput): Promise<RefundSnapshot> {
    if (input.method === 'pix') {
      const endToEndId = await this.endToEndIdOf(input.paymentRef);
      if (!endToEndId) throw GatewayFailure.refused(PROVIDER, [{ ...REFUND_REFUSALS.payment_not_paid!, path: [] }]);
      const response = await this.http.send({
        method: 'PUT',
        path: `/v1/pix/${encodeURIComponent(endToEndId)}/devolucao/${devolucaoId(input.idempotencyKey)}`,
        body: { amount: input.amount, description: input.reason ?? undefined },
      });
      return toDevolucaoSnapshot(expectRefund(response, devolucaoSchema, 'create pix devolucao'));
    }
    const response = await this.http.send({
      method: 'POST',
      path: '/v1/refunds',
      headers: { 'idempotency-key': input.idempotencyKey },
      body: { payment: input.paymentRef, amount: input.amount, reason: input.reason ?? undefined },
    });
    return toRefundSnapshot(expectRefund(response, refundSchema, 'create refund'));
  }

  async getRefund(refundRef: string, paymentRef: string): Promise<RefundSnapshot> {
    if (isCardRefund(refundRef)) {
      const response = await this.http.send({ method: 'GET', path: `/v1/refunds/${encodeURIComponent(refundRef)}` });
      return toRefundSnapshot(expectFound(PROVIDER, response, refundSchema, 'get refund'));
    }
    const endToEndId = await this.endToEndIdOf(paymentRef);
    // An unpaid Pix has no end-to-end id, so no devolução of it can exist.
    if (!endToEndId) throw GatewayFailure.missing(PROVIDER, 'get pix devolucao');
    const response = await this.http.send({ method: 'GET', path: `/v1/pix/${encodeURIComponent(endToEndId)}/devolucao/${encodeURIComponent(refundRef)}` });
    return toDevolucaoSnapshot(expectFound(PROVIDER, response, devolucaoSchema, 'get pix devolucao'));
  }

  async createSubscription(input: CreateSubscriptionInput): Promise<SubscriptionSnapshot> {
    const response = await this.http.send({
      method: 'POST',
      path: '/v1/subscriptions',
      headers: { 'idempotency-key': input.idempotencyKey },
      body: {
        amount: input.amount,
        currency: 'brl',
        interval: input.interval === 'monthly' ? 'month' : 'year',
        trial_days: input.trialDays,
        customer: wireCustomer(input.customer),
        return_url: input.returnUrl ?? undefined,
      },
    });
    return toSubscriptionSnapshot(expectAnswer(PROVIDER, response, subscriptionSchema, 'create subscription', refusal));
  }

  async getSubscription(gatewayRef: string): Promise<SubscriptionSnapshot> {
    const response = await this.http.send({ method: 'GET', path: `/v1/subscriptions/${encodeURIComponent(gatewayRef)}` });
    return toSubscriptionSnapshot(expectFound(PROVIDER, response, subscriptionSchema, 'get subscription'));
  }

  async cancelSubscription(gatewayRef: string, options: CancelSubscriptionOptions): Promise<SubscriptionSnapshot> {
    if (options.atPeriodEnd) {
      throw GatewayFailure.refused(PROVIDER, [{ path: ['atPeriodEnd'], message: 'gateway_a cancels subscriptions immediately only.' }]);
    }
    const response = await this.http.send({ method: 'DELETE', path: `/v1/subscriptions/${encodeURIComponent(gatewayRef)}` });
    return toSubscriptionSnapshot(expectAnswer(PROVIDER, response, subscriptionSchema, 'cancel subscription'));
  }

  async parseWebhook(input: InboundWebhook): Promise<GatewayEvent[]> {
    this.verifySignature(input);
    const event = parseWebhookBody(PROVIDER, input.rawBody, eventSchema);
    const base = { eventId: event.id, occurredAt: unixToIso(event.created) };
    const object = event.data.object;
    switch (event.type) {
      case 'payment.updated': {
        const payment = this.seen(parseWebhookObject(PROVIDER, object, paymentSchema));
        return [{ ...base, kind: 'payment_status', payment: toPaymentSnapshot(payment) }];
      }
      case 'subscription.updated':
      case 'subscription.deleted': {
        const subscription = parseWebhookObject(PROVIDER, object, subscriptionSchema);
        return [{ ...base, kind: 'subscription_status', subscription: toSubscriptionSnapshot(subscription) }];
      }
      case 'invoice.paid':
      case 'invoice.payment_failed': {
        const invoice = parseWebhookObject(PROVIDER, object, invoiceSchema);
        return [
          {
            ...base,
            kind: 'subscription_charge',
            outcome: event.type === 'invoice.paid' ? 'paid' : 'failed',
            subscriptionRef: invoice.subscription,
            payment: toPaymentSnapshot(invoice.payment),
            nextBillingAt: unixToIso(invoice.period_end),
          },
        ];
      }
      case 'refund.updated': {
        const refund = parseWebhookObject(PROVIDER, object, refundSchema);
        return [{ ...base, kind: 'refund_status', refund: toRefundSnapshot(refund) }];
      }
      case 'pix_devolucao.updated': {
        const devolucao = parseWebhookObject(PROVIDER, object, devolucaoSchema);
        return [{ ...base, kind: 'refund_status', refund: toDevolucaoSnapshot(devolucao) }];
      }
      default:
        return [];
    }
  }

  /** `t=<unix>,v1=<hex hmac of "<t>.<raw body>">`; several v1 entries allowed during secret rotation. */
  private verifySignature(input: InboundWebhook): void {
    const header = headerValue(input.headers, SIGNATURE_HEADER);
    if (!header) throw new WebhookRejectedError(PROVIDER, 'missing_signature');
    let timestamp: string | undefined;
    const signatures: string[] = [];
    for (const part of header.split(',')) {
      const [key, value] = part.trim().split('=', 2);
      if (key === 't') timestamp = value;
      if (key === 'v1' && value) signatures.push(value);
    }
    if (!timestamp || !/^\d+$/.test(timestamp) || signatures.length === 0) {
      throw new WebhookRejectedError(PROVIDER, 'invalid_signature');
    }
    const expected = hmacSha256(
      this.credentials.webhookSecret,
      Buffer.concat([Buffer.from(`${timestamp}.`, 'utf8'), input.rawBody]),
      'hex',
    );
    if (!signatures.some((signature) => safeEqual(signature, expected))) {
      throw new WebhookRejectedError(PROVIDER, 'invalid_signature');
    }
    // Checked after the HMAC so a forged header cannot probe the clock.
    if (Math.abs(Date.now() / 1000 - Number(timestamp)) > SIGNATURE_TOLERANCE_SECONDS) {
      throw new WebhookRejectedError(PROVIDER, 'stale_timestamp');
    }
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
