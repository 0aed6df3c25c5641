/**
 * gateway_a's wire, as the adapter sees it: its authentication and error
 * bodies, its API routes, the Pix QR images and the hosted checkout pages.
 * Each route reads and changes the simulator's state (state.ts).
 */
import { z } from 'zod';
import { sandboxPixCode, type SandboxPixReceiver } from '../simulator/brcode';
import { hostedCheckoutRoutes, withParams, type CheckoutOutcome } from '../simulator/checkout-page';
import type { GatewaySimulator } from '../simulator/control';
import { addDays, addInterval, newId, returnUrlSchema } from '../simulator/fixtures';
import type { SimProtocol, SimRequest, SimResponse, SimRoute } from '../simulator/server';
import { headerValue, safeEqual } from '../../gateways/signing';
import type { WireDevolucao, WirePayment, WireRefund } from '../../gateways/gateway_a/wire';
import { DEVOLUCAO_ID, pixTransactionId, refundRefusal, type RefundRefusal } from '../simulator/refunds';
import { GatewayAState, now, OPEN_SUBSCRIPTION, PIX_LIFETIME_SECONDS, publicSubscription, SANDBOX_ISPB } from './state';

const MAX_INSTALLMENTS = 12;

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
const refundInput = z.object({
  payment: z.string().min(1),
  amount: z.number().int().positive(),
  reason: z.string().max(500).optional(),
});
const devolucaoInput = z.object({
  amount: z.number().int().positive(),
  description: z.string().max(140).optional(),
});
const subscriptionInput = z.object({
  amount: z.number().int().positive(),
  currency: z.literal('brl'),
  interval: z.enum(['month', 'year']),
  trial_days: z.number().int().min(0).max(730).default(0),
  customer: customerInput,
  return_url: returnUrlSchema.optional(),
});

function errorResponse(status: number, message: string, extra: { type?: string; code?: string; param?: string } = {}): SimResponse {
  const type = extra.type ?? (status === 401 ? 'authentication_error' : status >= 500 ? 'api_error' : 'invalid_request_error');
  return { status, body: { error: { type, ...(extra.code ? { code: extra.code } : {}), message, ...(extra.param ? { param: extra.param } : {}) } } };
}

function refuse(issues: z.core.$ZodIssue[]): SimResponse {
  const param = issues[0]?.path.join('.') ?? 'body';
  return errorResponse(422, `${param} is invalid`, { code: 'parameter_invalid', param });
}

/** gateway_a's refusal of a refund: 422 with its code, and `param: "amount"` where the amount is the reason. */
const REFUND_REFUSAL_ANSWERS: Record<Exclude<RefundRefusal, 'partial_not_supported'>, SimResponse> = {
  not_paid: errorResponse(422, 'The payment is not paid, so it cannot be refunded', { code: 'payment_not_paid' }),
  fully_refunded: errorResponse(422, 'The payment has already been refunded in full', { code: 'charge_already_refunded', param: 'amount' }),
  exceeds_refundable: errorResponse(422, 'Refund amount is greater than what remains to refund', { code: 'amount_too_large', param: 'amount' }),
};

/** How gateway_a authenticates and answers errors. */
export function protocolOf(state: GatewayAState): SimProtocol {
  return {
    authenticate(req) {
      const header = headerValue(req.headers, 'authorization') ?? '';
      return safeEqual(header, `Bearer ${state.credentials.secretKey}`) ? null : errorResponse(401, 'Invalid API key provided');
    },
    errorResponse: (status, message) => errorResponse(status, message),
    validationResponse: (field, message) => errorResponse(422, message, { code: 'parameter_invalid', param: field }),
    defaultValidationField: (operation) =>
      operation === 'createPayment' ? 'installments' : operation === 'createSubscription' ? 'customer.email' : operation === 'createRefund' ? 'amount' : 'id',
  };
}

/** Same key, same scope: the original resource, whatever the new body says. */
function replay(state: GatewayAState, scope: string, req: SimRequest): SimResponse | { key: string } {
  const key = headerValue(req.headers, 'idempotency-key');
  if (!key) return errorResponse(400, 'Idempotency-Key header is required', { code: 'idempotency_key_missing' });
  const existing = state.idempotency.get(`${scope}:${key}`);
  if (existing !== undefined) {
    const resource = scope === 'payments' ? state.payments.get(existing) : publicSubscription(state.subscriptions.get(existing)!);
    return { status: 200, body: resource };
  }
  return { key: `${scope}:${key}` };
}

/** The API the adapter calls. */
export function apiRoutes(state: GatewayAState): SimRoute[] {
  return [
    {
      method: 'POST',
      pattern: '/v1/payments',
      operation: 'createPayment',
      handler: async (req) => {
        const seen = replay(state, 'payments', req);
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
          checkout_url: input.data.method === 'card' ? `${state.baseUrl}/checkout/${id}` : null,
          pix: pix ? { qr_code_url: `${state.baseUrl}/pix/${id}/qr.png`, copy_paste: pix, expires_at: now() + PIX_LIFETIME_SECONDS, end_to_end_id: null } : null,
          card: null,
          subscription: null,
          return_url: input.data.return_url ?? null,
          paid_at: null,
          created: now(),
        };
        state.payments.set(id, payment);
        state.pageInfo.set(id, { description: input.data.description ?? null, customerName: input.data.customer.name });
        state.idempotency.set(seen.key, id);
        state.created.payments += 1;
        return { status: 201, body: payment };
      },
    },
    {
      method: 'GET',
      pattern: '/v1/payments/:id',
      operation: 'getPayment',
      handler: (req) => {
        const payment = state.payments.get(req.params.id ?? '');
        return payment ? { status: 200, body: payment } : errorResponse(404, 'No such payment', { code: 'resource_missing' });
      },
    },
    {
      method: 'POST',
      pattern: '/v1/payments/:id/cancel',
      operation: 'cancelPayment',
      handler: (req) => {
        const payment = state.payments.get(req.params.id ?? '');
        if (!payment) return errorResponse(404, 'No such payment', { code: 'resource_missing' });
        if (payment.method !== 'card' || !['requires_payment_method', 'requires_action'].includes(payment.status)) {
          return errorResponse(409, `Payment in status ${payment.status} cannot be canceled`, { code: 'payment_unexpected_state' });
        }
        state.setPayment(payment, { status: 'canceled' });
        return { status: 200, body: payment };
      },
    },
    ...refundRoutes(state),
    {
      method: 'POST',
      pattern: '/v1/subscriptions',
      operation: 'createSubscription',
      handler: (req) => {
        const seen = replay(state, 'subscriptions', req);
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
          checkout_url: `${state.baseUrl}/checkout/${id}`,
          return_url: input.data.return_url ?? null,
          created: now(),
          checkout_completed: false,
        };
        state.subscriptions.set(id, subscription);
        state.pageInfo.set(id, { description: null, customerName: input.data.customer.name });
        state.idempotency.set(seen.key, id);
        state.created.subscriptions += 1;
        return { status: 201, body: publicSubscription(subscription) };
      },
    },
    {
      method: 'GET',
      pattern: '/v1/subscriptions/:id',
      operation: 'getSubscription',
      handler: (req) => {
        const subscription = state.subscriptions.get(req.params.id ?? '');
        return subscription ? { status: 200, body: publicSubscription(subscription) } : errorResponse(404, 'No such subscription', { code: 'resource_missing' });
      },
    },
    {
      method: 'DELETE',
      pattern: '/v1/subscriptions/:id',
      operation: 'cancelSubscription',
      handler: (req) => {
        const subscription = state.subscriptions.get(req.params.id ?? '');
        if (!subscription) return errorResponse(404, 'No such subscription', { code: 'resource_missing' });
        if (req.query.has('at_period_end')) return errorResponse(400, 'at_period_end is not supported', { code: 'parameter_unknown', param: 'at_period_end' });
        if (subscription.status === 'canceled') return errorResponse(409, 'Subscription already canceled', { code: 'subscription_canceled' });
        state.setSubscription(subscription, { status: 'canceled', canceled_at: now() });
        return { status: 200, body: publicSubscription(subscription) };
      },
    },
  ];
}

/** What a browser opens: the Pix QR images and the hosted checkout pages. */
export function pageRoutes(state: GatewayAState, handle: () => GatewaySimulator): SimRoute[] {
  /** The QR image a Pix's `qr_code_url` names: public like a hosted page, rendered on its first request. */
  const qrImageRoute: SimRoute = {
    method: 'GET',
    pattern: '/pix/:id/qr.png',
    public: true,
    handler: async (req) => {
      const payment = state.payments.get(req.params.id ?? '');
      if (!payment?.pix) return errorResponse(404, 'No such Pix', { code: 'resource_missing' });
      return { status: 200, rawBody: await state.qrImages.png(payment.id, payment.pix.copy_paste), contentType: 'image/png', headers: { 'cache-control': 'public, max-age=86400' } };
    },
  };

  const checkoutPages = hostedCheckoutRoutes({
    pattern: '/checkout/:ref',
    brand: { title: 'Gateway A', accent: '#4f46e5' },
    handle,
    view(ref) {
      const info = state.pageInfo.get(ref);
      const p = state.payments.get(ref);
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
      const s = state.subscriptions.get(ref);
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
  return [qrImageRoute, ...checkoutPages];
}

/**
 * Refunds: card refunds (`POST /v1/refunds` under an Idempotency-Key) and Pix
 * devoluções (`PUT /v1/pix/{e2eid}/devolucao/{id}`, the id chosen by the
 * client, so repeating the PUT answers the devolução it made). Both start
 * pending unless the sandbox settles refunds at once.
 */
function refundRoutes(state: GatewayAState): SimRoute[] {
  const noSuchPayment = () => errorResponse(404, 'No such payment', { code: 'resource_missing' });
  const noSuchRefund = () => errorResponse(404, 'No such refund', { code: 'resource_missing' });
  /** Checks the amount against the payment and records the refund; settled at once when the sandbox says so. */
  const open = (payment: WirePayment, amount: number, scopeKey: string, wire: (status: string) => WireRefund | WireDevolucao, aliases: string[] = []): SimResponse => {
    const refusal = refundRefusal({
      paid: payment.status === 'succeeded',
      paymentAmount: payment.amount,
      refundable: state.refunds.refundable(payment.id, payment.amount),
      amount,
    });
    if (refusal && refusal !== 'partial_not_supported') return REFUND_REFUSAL_ANSWERS[refusal];
    const object = wire('');
    object.status = GatewayAState.refundStatus(object, 'pending');
    // A devolução id is unique only within its Pix: the ledger names it `<e2eid>/<id>`, the controls by its id or rtrId.
    const ref = object.object === 'refund' ? object.id : `${object.end_to_end_id}/${object.id}`;
    const refund = state.refunds.add({ ref, aliases: object.object === 'refund' ? aliases : [object.id, ...aliases], paymentRef: payment.id, amount, state: 'pending', wire: object }, scopeKey);
    state.created.refunds += 1;
    if (state.refunds.settlement === 'at-once') state.moveRefund(refund, 'succeeded');
    return { status: 201, body: refund.wire };
  };
  return [
    {
      method: 'POST',
      pattern: '/v1/refunds',
      operation: 'createRefund',
      handler: (req) => {
        const key = headerValue(req.headers, 'idempotency-key');
        if (!key) return errorResponse(400, 'Idempotency-Key header is required', { code: 'idempotency_key_missing' });
        const seen = state.refunds.replayed(`refunds:${key}`);
        if (seen) return { status: 200, body: seen.wire };
        const input = refundInput.safeParse(req.body);
        if (!input.success) return refuse(input.error.issues);
        const payment = state.payments.get(input.data.payment);
        if (!payment) return noSuchPayment();
        if (payment.method !== 'card') return errorResponse(422, 'Pix payments are refunded by a devolução', { code: 'payment_method_unsupported', param: 'payment' });
        return open(payment, input.data.amount, `refunds:${key}`, (status) => ({
          id: newId('re_'),
          object: 'refund',
          payment: payment.id,
          amount: input.data.amount,
          currency: 'brl',
          status,
          reason: input.data.reason ?? null,
          failure_reason: null,
          created: now(),
        }));
      },
    },
    {
      method: 'GET',
      pattern: '/v1/refunds/:id',
      operation: 'getRefund',
      handler: (req) => {
        const refund = state.refunds.get(req.params.id ?? '');
        return refund?.wire.object === 'refund' ? { status: 200, body: refund.wire } : noSuchRefund();
      },
    },
    {
      method: 'PUT',
      pattern: '/v1/pix/:e2eid/devolucao/:id',
      operation: 'createRefund',
      handler: (req) => {
        const endToEndId = req.params.e2eid ?? '';
        const id = req.params.id ?? '';
        if (!DEVOLUCAO_ID.test(id)) return errorResponse(422, 'The devolução id must be 1 to 35 letters or digits', { code: 'parameter_invalid', param: 'id' });
        const payment = state.paymentByEndToEndId(endToEndId);
        if (!payment) return errorResponse(404, 'No Pix with this end-to-end id', { code: 'resource_missing' });
        const scopeKey = `devolucao:${endToEndId}:${id}`;
        const seen = state.refunds.replayed(scopeKey);
        if (seen) return { status: 200, body: seen.wire };
        const input = devolucaoInput.safeParse(req.body);
        if (!input.success) return refuse(input.error.issues);
        const rtrId = pixTransactionId('D', SANDBOX_ISPB);
        return open(
          payment,
          input.data.amount,
          scopeKey,
          (status) => ({
            id,
            object: 'pix_devolucao',
            rtr_id: rtrId,
            end_to_end_id: endToEndId,
            payment: payment.id,
            amount: input.data.amount,
            status,
            description: input.data.description ?? null,
            failure_reason: null,
            created: now(),
            settled_at: null,
          }),
          [rtrId],
        );
      },
    },
    {
      method: 'GET',
      pattern: '/v1/pix/:e2eid/devolucao/:id',
      operation: 'getRefund',
      handler: (req) => {
        const seen = state.refunds.replayed(`devolucao:${req.params.e2eid ?? ''}:${req.params.id ?? ''}`);
        return seen ? { status: 200, body: seen.wire } : noSuchRefund();
      },
    },
  ];
}
