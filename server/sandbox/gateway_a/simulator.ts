/** In-memory gateway_a speaking gateways/gateway_a/PROTOCOL.md over real HTTP, with the common `/_sim/` control surface. */
import { z } from 'zod';
import type { CardSummary } from '../../gateways/adapter';
import { QrImages, sandboxPixCode, type SandboxPixReceiver } from '../simulator/brcode';
import { hostedCheckoutRoutes, withParams, type CheckoutOutcome } from '../simulator/checkout-page';
import { buildHandle, controlRoutes, type GatewaySimulator, type SimulatorActions, type SimulatorOptions } from '../simulator/control';
import { addDays, addInterval, DEFAULT_CARD, found, newId, requireOpen, returnUrlSchema } from '../simulator/fixtures';
import { SimControlError, startSimServer, type SimProtocol, type SimRequest, type SimResponse, type SimRoute } from '../simulator/server';
import { WebhookDispatcher } from '../simulator/webhooks';
import { hmacSha256, headerValue, safeEqual } from '../../gateways/signing';
import { credentialsSchema, SIGNATURE_HEADER, type GatewayACredentials, type WirePayment, type WireSubscription } from '../../gateways/gateway_a/wire';

const MAX_INSTALLMENTS = 12;
const OPEN_PAYMENT = ['requires_payment_method', 'requires_action', 'processing'];
const OPEN_SUBSCRIPTION = ['trialing', 'active', 'past_due', 'unpaid'];

/** The sandbox account's own Pix receiver: every simulated Pix is paid to it. */
const PIX_RECEIVER: SandboxPixReceiver = {
  pixKey: 'a1d4c0de-5a7d-4b0a-9a11-0000000000a1',
  merchantName: 'Gateway A Sandbox',
  merchantCity: 'São Paulo',
};

/** gateway_a's words for a checkout outcome in the return address (`redirect_status`). */
const REDIRECT_STATUS: Record<CheckoutOutcome, string> = { paid: 'succeeded', declined: 'failed', abandoned: 'canceled' };

const customerInput = z.object({
  name: z.string().min(1),
  email: z.email(),
  tax_id: z.string().regex(/^(\d{11}|\d{14})$/),
  phone: z.string().optional(),
});
const paymentInput = z.object({
  amount: z.number().int().positive(),
  currency: z.literal('brl'),
  method: z.enum(['pix', 'card']),
  installments: z.number().int().min(1).max(MAX_INSTALLMENTS).default(1),
  description: z.string().optional(),
  customer: customerInput,
  return_url: returnUrlSchema.optional(),
});
const subscriptionInput = z.object({
  amount: z.number().int().positive(),
  currency: z.literal('brl'),
  interval: z.enum(['month', 'year']),
  trial_days: z.number().int().min(0).max(730).default(0),
  customer: customerInput,
  return_url: returnUrlSchema.optional(),
});

const now = () => Math.floor(Date.now() / 1000);

function errorResponse(status: number, message: string, extra: { type?: string; code?: string; param?: string } = {}): SimResponse {
  const type = extra.type ?? (status === 401 ? 'authentication_error' : status >= 500 ? 'api_error' : 'invalid_request_error');
  return { status, body: { error: { type, ...(extra.code ? { code: extra.code } : {}), message, ...(extra.param ? { param: extra.param } : {}) } } };
}

function refuse(issues: z.core.$ZodIssue[]): SimResponse {
  const param = issues[0]?.path.join('.') ?? 'body';
  return errorResponse(422, `${param} is invalid`, { code: 'parameter_invalid', param });
}

export async function startGatewayASimulator(options: SimulatorOptions<GatewayACredentials>): Promise<GatewaySimulator> {
  const credentials = credentialsSchema.parse(options.credentials);
  const qrImages = new QrImages();
  const payments = new Map<string, WirePayment>();
  const subscriptions = new Map<string, WireSubscription & { checkout_completed: boolean }>();
  const idempotency = new Map<string, string>();
  /** What the hosted page shows beyond the wire object: the order description and the cardholder to prefill. */
  const pageInfo = new Map<string, { description: string | null; customerName: string }>();
  const created = { payments: 0, subscriptions: 0, subscriptionCharges: 0 };
  let baseUrl = '';

  const webhooks = new WebhookDispatcher(options.webhookUrl ?? null, (body) => {
    const t = now();
    return { [SIGNATURE_HEADER.toLowerCase()]: `t=${t},v1=${hmacSha256(credentials.webhookSecret, `${t}.${body}`, 'hex')}` };
  });
  const emit = (type: string, object: unknown) => webhooks.emit(type, { id: newId('evt_'), type, created: now(), data: { object } });

  const publicSubscription = (s: WireSubscription & { checkout_completed: boolean }): WireSubscription => {
    const { checkout_completed: _ignored, ...wire } = s;
    return wire;
  };

  const protocol: SimProtocol = {
    authenticate(req) {
      const header = headerValue(req.headers, 'authorization') ?? '';
      return safeEqual(header, `Bearer ${credentials.secretKey}`) ? null : errorResponse(401, 'Invalid API key provided');
    },
    errorResponse: (status, message) => errorResponse(status, message),
    validationResponse: (field, message) => errorResponse(422, message, { code: 'parameter_invalid', param: field }),
    defaultValidationField: (operation) => (operation === 'createPayment' ? 'installments' : operation === 'createSubscription' ? 'customer.email' : 'id'),
  };

  /** Same key, same scope: the original resource, whatever the new body says. */
  function replay(scope: string, req: SimRequest): SimResponse | { key: string } {
    const key = headerValue(req.headers, 'idempotency-key');
    if (!key) return errorResponse(400, 'Idempotency-Key header is required', { code: 'idempotency_key_missing' });
    const existing = idempotency.get(`${scope}:${key}`);
    if (existing !== undefined) {
      const resource = scope === 'payments' ? payments.get(existing) : publicSubscription(subscriptions.get(existing)!);
      return { status: 200, body: resource };
    }
    return { key: `${scope}:${key}` };
  }

  function setPayment(payment: WirePayment, changes: Partial<WirePayment>): void {
    Object.assign(payment, changes);
    emit('payment.updated', payment);
  }

  function newCharge(subscription: WireSubscription, status: string): WirePayment {
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
      created: now(),
    };
    payments.set(charge.id, charge);
    created.subscriptionCharges += 1;
    return charge;
  }

  function setSubscription(subscription: WireSubscription & { checkout_completed: boolean }, changes: Partial<WireSubscription>): void {
    const before = subscription.status;
    Object.assign(subscription, changes);
    if (before !== subscription.status) {
      emit(subscription.status === 'canceled' ? 'subscription.deleted' : 'subscription.updated', publicSubscription(subscription));
    }
  }

  const api: SimRoute[] = [
    {
      method: 'POST',
      pattern: '/v1/payments',
      operation: 'createPayment',
      handler: async (req) => {
        const seen = replay('payments', req);
        if ('status' in seen) return seen;
        const input = paymentInput.safeParse(req.body);
        if (!input.success) return refuse(input.error.issues);
        const id = newId('pi_');
        const pix = input.data.method === 'pix' ? sandboxPixCode(PIX_RECEIVER, id, input.data.amount) : null;
        const payment: WirePayment = {
          id,
          object: 'payment',
          amount: input.data.amount,
          currency: 'brl',
          method: input.data.method,
          status: 'requires_payment_method',
          installments: input.data.method === 'card' ? input.data.installments : 1,
          checkout_url: input.data.method === 'card' ? `${baseUrl}/checkout/${id}` : null,
          pix: pix ? { qr_code_url: `${baseUrl}/pix/${id}/qr.png`, copy_paste: pix } : null,
          card: null,
          subscription: null,
          return_url: input.data.return_url ?? null,
          created: now(),
        };
        payments.set(id, payment);
        pageInfo.set(id, { description: input.data.description ?? null, customerName: input.data.customer.name });
        idempotency.set(seen.key, id);
        created.payments += 1;
        return { status: 201, body: payment };
      },
    },
    {
      method: 'GET',
      pattern: '/v1/payments/:id',
      operation: 'getPayment',
      handler: (req) => {
        const payment = payments.get(req.params.id ?? '');
        return payment ? { status: 200, body: payment } : errorResponse(404, 'No such payment', { code: 'resource_missing' });
      },
    },
    {
      method: 'POST',
      pattern: '/v1/payments/:id/cancel',
      operation: 'cancelPayment',
      handler: (req) => {
        const payment = payments.get(req.params.id ?? '');
        if (!payment) return errorResponse(404, 'No such payment', { code: 'resource_missing' });
        if (payment.method !== 'card' || !['requires_payment_method', 'requires_action'].includes(payment.status)) {
          return errorResponse(409, `Payment in status ${payment.status} cannot be canceled`, { code: 'payment_unexpected_state' });
        }
        setPayment(payment, { status: 'canceled' });
        return { status: 200, body: payment };
      },
    },
    {
      method: 'POST',
      pattern: '/v1/subscriptions',
      operation: 'createSubscription',
      handler: (req) => {
        const seen = replay('subscriptions', req);
        if ('status' in seen) return seen;
        const input = subscriptionInput.safeParse(req.body);
        if (!input.success) return refuse(input.error.issues);
        const id = newId('subs_');
        const start = new Date();
        const interval = input.data.interval === 'month' ? 'monthly' : 'yearly';
        const trialEnd = input.data.trial_days > 0 ? addDays(start, input.data.trial_days) : null;
        const subscription = {
          id,
          object: 'subscription' as const,
          status: trialEnd ? 'trialing' : 'active',
          amount: input.data.amount,
          currency: 'brl' as const,
          interval: input.data.interval,
          trial_end: trialEnd ? Math.floor(trialEnd.getTime() / 1000) : null,
          current_period_end: Math.floor((trialEnd ?? addInterval(start, interval)).getTime() / 1000),
          cancel_at_period_end: false,
          canceled_at: null,
          checkout_url: `${baseUrl}/checkout/${id}`,
          return_url: input.data.return_url ?? null,
          created: now(),
          checkout_completed: false,
        };
        subscriptions.set(id, subscription);
        pageInfo.set(id, { description: null, customerName: input.data.customer.name });
        idempotency.set(seen.key, id);
        created.subscriptions += 1;
        return { status: 201, body: publicSubscription(subscription) };
      },
    },
    {
      method: 'GET',
      pattern: '/v1/subscriptions/:id',
      operation: 'getSubscription',
      handler: (req) => {
        const subscription = subscriptions.get(req.params.id ?? '');
        return subscription ? { status: 200, body: publicSubscription(subscription) } : errorResponse(404, 'No such subscription', { code: 'resource_missing' });
      },
    },
    {
      method: 'DELETE',
      pattern: '/v1/subscriptions/:id',
      operation: 'cancelSubscription',
      handler: (req) => {
        const subscription = subscriptions.get(req.params.id ?? '');
        if (!subscription) return errorResponse(404, 'No such subscription', { code: 'resource_missing' });
        if (req.query.has('at_period_end')) return errorResponse(400, 'at_period_end is not supported', { code: 'parameter_unknown', param: 'at_period_end' });
        if (subscription.status === 'canceled') return errorResponse(409, 'Subscription already canceled', { code: 'subscription_canceled' });
        setSubscription(subscription, { status: 'canceled', canceled_at: now() });
        return { status: 200, body: publicSubscription(subscription) };
      },
    },
  ];

  const payment = (ref: string) => found(payments, ref, 'payment');
  const subscription = (ref: string) => found(subscriptions, ref, 'subscription');

  const actions: SimulatorActions = {
    payPayment(ref, card?: CardSummary) {
      const p = payment(ref);
      requireOpen(p.status, OPEN_PAYMENT, 'payment');
      setPayment(p, { status: 'succeeded', card: p.method === 'card' ? { ...(card ?? DEFAULT_CARD) } : null });
    },
    declinePayment(ref) {
      const p = payment(ref);
      requireOpen(p.status, OPEN_PAYMENT, 'payment');
      setPayment(p, { status: 'payment_failed' });
    },
    expirePayment(ref) {
      const p = payment(ref);
      requireOpen(p.status, OPEN_PAYMENT, 'payment');
      setPayment(p, { status: 'expired' });
    },
    setPaymentStatus(ref, rawStatus) {
      setPayment(payment(ref), { status: rawStatus });
    },
    completeCheckout(ref) {
      const s = subscription(ref);
      requireOpen(s.status, OPEN_SUBSCRIPTION, 'subscription');
      s.checkout_completed = true;
      return { subscriptionRef: s.id };
    },
    raceNextDeactivation(ref) {
      subscription(ref);
      throw new SimControlError(409, 'gateway_a subscriptions have no checkout link to deactivate');
    },
    renewSubscription(ref) {
      const s = subscription(ref);
      requireOpen(s.status, OPEN_SUBSCRIPTION, 'subscription');
      const charge = newCharge(s, 'succeeded');
      const periodEnd = addInterval(new Date((s.current_period_end ?? now()) * 1000), s.interval === 'month' ? 'monthly' : 'yearly');
      setSubscription(s, { status: 'active', current_period_end: Math.floor(periodEnd.getTime() / 1000) });
      emit('invoice.paid', { id: newId('in_'), object: 'invoice', subscription: s.id, status: 'paid', period_end: s.current_period_end, payment: charge });
      return { paymentRef: charge.id };
    },
    failSubscriptionCharge(ref) {
      const s = subscription(ref);
      requireOpen(s.status, OPEN_SUBSCRIPTION, 'subscription');
      const charge = newCharge(s, 'payment_failed');
      emit('invoice.payment_failed', { id: newId('in_'), object: 'invoice', subscription: s.id, status: 'open', period_end: s.current_period_end, payment: charge });
      return { paymentRef: charge.id };
    },
    markPastDue(ref) {
      const s = subscription(ref);
      requireOpen(s.status, OPEN_SUBSCRIPTION, 'subscription');
      setSubscription(s, { status: 'past_due' });
    },
    endTrial(ref) {
      const s = subscription(ref);
      if (s.status !== 'trialing') throw new SimControlError(409, `subscription is ${s.status}`);
      setSubscription(s, { status: 'active', trial_end: now() });
    },
    setSubscriptionStatus(ref, rawStatus) {
      const s = subscription(ref);
      Object.assign(s, { status: rawStatus });
      emit('subscription.updated', publicSubscription(s));
    },
  };

  /** The QR image a Pix's `qr_code_url` names: public like a hosted page, rendered on its first request. */
  const qrImageRoute: SimRoute = {
    method: 'GET',
    pattern: '/pix/:id/qr.png',
    public: true,
    handler: async (req) => {
      const payment = payments.get(req.params.id ?? '');
      if (!payment?.pix) return errorResponse(404, 'No such Pix', { code: 'resource_missing' });
      return { status: 200, rawBody: await qrImages.png(payment.id, payment.pix.copy_paste), contentType: 'image/png', headers: { 'cache-control': 'public, max-age=86400' } };
    },
  };

  const checkoutPages = hostedCheckoutRoutes({
    pattern: '/checkout/:ref',
    brand: { title: 'Gateway A', accent: '#4f46e5' },
    handle: () => handle!,
    view(ref) {
      const info = pageInfo.get(ref);
      const p = payments.get(ref);
      if (p && p.method === 'card') {
        return {
          kind: 'payment',
          amount: p.amount,
          installments: p.installments,
          interval: null,
          trialDays: 0,
          description: info?.description ?? null,
          customerName: info?.customerName ?? null,
          open: ['requires_payment_method', 'requires_action'].includes(p.status),
          rawStatus: p.status,
          returnUrl: p.return_url,
        };
      }
      const s = subscriptions.get(ref);
      if (!s) return null;
      const trialDays = s.trial_end ? Math.max(0, Math.round((s.trial_end - s.created) / 86_400)) : 0;
      return {
        kind: 'subscription',
        amount: s.amount,
        installments: 1,
        interval: s.interval === 'month' ? 'monthly' : 'yearly',
        trialDays,
        description: null,
        customerName: info?.customerName ?? null,
        open: OPEN_SUBSCRIPTION.includes(s.status) && !s.checkout_completed,
        rawStatus: s.checkout_completed ? 'checkout_completed' : s.status,
        returnUrl: s.return_url,
      };
    },
    returnTo: (returnUrl, ref, outcome) =>
      withParams(returnUrl, { [ref.startsWith('subs_') ? 'subscription' : 'payment']: ref, redirect_status: REDIRECT_STATUS[outcome] }),
  });

  let handle: GatewaySimulator | undefined;
  const server = await startSimServer({
    port: options.port,
    host: options.host,
    protocol,
    routes: [...api, qrImageRoute, ...checkoutPages, ...controlRoutes(() => handle!)],
  });
  baseUrl = server.url;
  handle = buildHandle(server, webhooks, actions, () => ({ ...created }));
  return handle;
}
