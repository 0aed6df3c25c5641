/**
 * gateway_c's wire, as the adapter sees it: its authentication and error
 * bodies, its API routes (plans, checkout links, subscriptions) and its
 * hosted checkout pages. Each route reads and changes the simulator's state
 * (state.ts).
 */
import { z } from 'zod';
import { hostedCheckoutRoutes, withParams, type CheckoutOutcome } from '../simulator/checkout-page';
import type { GatewaySimulator, SimulatorActions } from '../simulator/control';
import { newId, returnUrlSchema } from '../simulator/fixtures';
import type { SimProtocol, SimRequest, SimResponse, SimRoute } from '../simulator/server';
import { headerValue, safeEqual } from '../../gateways/signing';
import type { WireCharge, WireCheckoutLink, WirePlan, WireRefund } from '../../gateways/gateway_c/wire';
import { refundRefusal, type RefundRefusal } from '../simulator/refunds';
import { LINK_LIFETIME_MS, OPEN_SUBSCRIPTION, REFUND_STATUS, type GatewayCState } from './state';

const MAX_INSTALLMENTS = 24;

/** gateway_c's words for a checkout outcome in the return address (`result`). */
const REDIRECT_RESULT: Record<CheckoutOutcome, string> = { paid: 'success', declined: 'declined', abandoned: 'abandoned' };

const customerInput = z.object({
  name: z.string().min(1),
  email: z.email(),
  document: z.string().regex(/^(\d{11}|\d{14})$/),
  phone: z.string().regex(/^\d{10,}$/, 'phone needs area code and number, digits only'),
});
const linkInput = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('single'),
    amount_cents: z.number().int().positive(),
    installments: z.number().int().min(1).max(MAX_INSTALLMENTS).default(1),
    description: z.string().optional(),
    customer: customerInput,
    redirect_url: returnUrlSchema.optional(),
  }),
  z.object({ type: z.literal('subscription'), plan_id: z.string().min(1), customer: customerInput, redirect_url: returnUrlSchema.optional() }),
]);

function errorResponse(status: number, code: string, message: string, errors?: { field: string; message: string }[]): SimResponse {
  return { status, body: { code, message, ...(errors ? { errors } : {}) } };
}

const refuse = (errors: { field: string; message: string }[]) => errorResponse(422, 'validation_failed', 'The request has invalid fields', errors);

const refundInput = z
  .object({
    checkout_link_id: z.string().min(1).optional(),
    charge_id: z.string().min(1).optional(),
    amount_cents: z.number().int().positive(),
    reason: z.string().max(500).optional(),
  })
  .refine((body) => (body.checkout_link_id === undefined) !== (body.charge_id === undefined), { path: ['charge_id'], message: 'Name exactly one of checkout_link_id and charge_id' });

/** gateway_c's refusal of a refund: it gives a charge back only in full, once. */
const REFUND_REFUSAL_ANSWERS: Record<RefundRefusal, SimResponse> = {
  not_paid: errorResponse(422, 'charge_not_paid', 'The charge is not paid'),
  fully_refunded: errorResponse(422, 'charge_already_refunded', 'The charge has already been refunded', [{ field: 'amount_cents', message: 'Nothing is left to refund' }]),
  exceeds_refundable: errorResponse(422, 'validation_failed', 'The request has invalid fields', [{ field: 'amount_cents', message: 'More than the charge' }]),
  partial_not_supported: errorResponse(422, 'validation_failed', 'The request has invalid fields', [{ field: 'amount_cents', message: 'Partial refunds are not supported: refund the whole charge' }]),
};

/** How gateway_c authenticates and answers errors. */
export function protocolOf(state: GatewayCState): SimProtocol {
  return {
    authenticate(req) {
      const key = headerValue(req.headers, 'x-api-key') ?? '';
      const secret = headerValue(req.headers, 'x-api-secret') ?? '';
      // Both compared, always, so timing does not tell which one was wrong.
      const keyOk = safeEqual(key, state.credentials.apiKey);
      const secretOk = safeEqual(secret, state.credentials.apiSecret);
      return keyOk && secretOk ? null : errorResponse(401, 'unauthenticated', 'Invalid API credentials');
    },
    errorResponse: (status, message) => errorResponse(status, status >= 500 ? 'internal_error' : 'bad_request', message),
    validationResponse: (field, message) => refuse([{ field, message }]),
    defaultValidationField: (operation) =>
      operation === 'createPayment' || operation === 'createSubscription' ? 'customer.phone' : operation === 'createRefund' ? 'amount_cents' : 'id',
  };
}

/** Which operation a checkout-link request counts as: a link is a payment or a subscription (faults and counters are per operation). */
const linkOperation = (state: GatewayCState, kind: 'create' | 'get') => (req: SimRequest) => {
  const type = kind === 'create' ? (req.body as { type?: unknown } | undefined)?.type : state.links.get(req.params.id ?? '')?.type;
  if (type === 'subscription') return kind === 'create' ? 'createSubscription' : 'getSubscription';
  return kind === 'create' ? 'createPayment' : 'getPayment';
};

/** The API the adapter calls; a deactivation that races a checkout completes it through the actions. */
export function apiRoutes(state: GatewayCState, actions: SimulatorActions): SimRoute[] {
  return [
    {
      method: 'GET',
      pattern: '/v2/plans',
      operation: 'getPlan',
      handler: () => ({ status: 200, body: { data: [...state.plans.values()] } }),
    },
    {
      method: 'GET',
      pattern: '/v2/plans/:id',
      operation: 'getPlan',
      handler: (req) => {
        const plan = state.plans.get(req.params.id ?? '');
        return plan ? { status: 200, body: plan } : errorResponse(404, 'not_found', 'Plan not found');
      },
    },
    {
      method: 'POST',
      pattern: '/v2/checkout-links',
      operation: linkOperation(state, 'create'),
      handler: (req) => {
        const key = headerValue(req.headers, 'x-idempotency-key');
        if (!key) return errorResponse(400, 'idempotency_key_required', 'X-Idempotency-Key is required');
        const existing = state.idempotency.get(key);
        if (existing !== undefined) return { status: 200, body: state.links.get(existing) };
        const input = linkInput.safeParse(req.body);
        if (!input.success) {
          return refuse(input.error.issues.map((issue) => ({ field: issue.path.join('.') || 'body', message: issue.message })));
        }
        let plan: WirePlan | null = null;
        if (input.data.type === 'subscription') {
          plan = state.plans.get(input.data.plan_id) ?? null;
          if (!plan) return refuse([{ field: 'plan_id', message: 'No such plan' }]);
        }
        const id = newId('pl_');
        const now = new Date();
        const link: WireCheckoutLink = {
          id,
          type: input.data.type,
          status: 'open',
          url: `${state.baseUrl}/pay/${id}`,
          amount_cents: input.data.type === 'single' ? input.data.amount_cents : plan!.amount_cents,
          installments: input.data.type === 'single' ? input.data.installments : null,
          plan,
          charge: null,
          subscription_id: null,
          redirect_url: input.data.redirect_url ?? null,
          created_at: now.toISOString(),
          expires_at: new Date(now.getTime() + LINK_LIFETIME_MS).toISOString(),
        };
        state.links.set(id, link);
        state.idempotency.set(key, id);
        state.pageInfo.set(id, { description: input.data.type === 'single' ? (input.data.description ?? null) : plan!.name, customerName: input.data.customer.name });
        if (link.type === 'single') state.created.payments += 1;
        else state.created.subscriptions += 1;
        return { status: 201, body: link };
      },
    },
    {
      method: 'GET',
      pattern: '/v2/checkout-links/:id',
      operation: linkOperation(state, 'get'),
      handler: (req) => {
        const link = state.links.get(req.params.id ?? '');
        return link ? { status: 200, body: link } : errorResponse(404, 'not_found', 'Checkout link not found');
      },
    },
    {
      method: 'POST',
      pattern: '/v2/checkout-links/:id/deactivate',
      operation: (req) => (state.links.get(req.params.id ?? '')?.type === 'subscription' ? 'cancelSubscription' : 'cancelPayment'),
      handler: (req) => {
        const link = state.links.get(req.params.id ?? '');
        if (!link) return errorResponse(404, 'not_found', 'Checkout link not found');
        if (link.status !== 'open') return errorResponse(409, 'link_not_open', `Checkout link is ${link.status}`);
        state.setLink(link, { status: 'deactivated' });
        if (!state.racingLinks.delete(link.id)) return { status: 200, body: link };
        // The race: the answer says deactivated, yet the customer's card went through in the same instant.
        const answer = structuredClone(link);
        actions.completeCheckout(link.id, { racingDeactivation: true });
        return { status: 200, body: answer };
      },
    },
    {
      method: 'GET',
      pattern: '/v2/charges/:id',
      operation: 'getPayment',
      handler: (req) => {
        const record = state.charges.get(req.params.id ?? '');
        return record ? { status: 200, body: record } : errorResponse(404, 'not_found', 'Charge not found');
      },
    },
    {
      method: 'POST',
      pattern: '/v2/refunds',
      operation: 'createRefund',
      handler: (req) => {
        const key = headerValue(req.headers, 'x-idempotency-key');
        if (!key) return errorResponse(400, 'idempotency_key_required', 'X-Idempotency-Key is required');
        const seen = state.refunds.replayed(`refunds:${key}`);
        if (seen) return { status: 200, body: seen.wire };
        const input = refundInput.safeParse(req.body);
        if (!input.success) return refuse(input.error.issues.map((issue) => ({ field: issue.path.join('.') || 'body', message: issue.message })));
        let link: WireCheckoutLink | undefined;
        let charge: WireCharge | undefined;
        if (input.data.checkout_link_id !== undefined) {
          link = state.links.get(input.data.checkout_link_id);
          if (!link || link.type !== 'single') return errorResponse(404, 'not_found', 'Checkout link not found');
          charge = link.charge ?? undefined;
        } else {
          charge = state.charges.get(input.data.charge_id!);
          if (!charge) return errorResponse(404, 'not_found', 'Charge not found');
          link = state.linkOfCharge(charge.id);
        }
        const paid = charge !== undefined && charge.status === 'paid' && (link === undefined || link.status === 'paid');
        const chargeAmount = charge?.amount_cents ?? link?.amount_cents ?? 0;
        const refusal = refundRefusal({
          paid,
          paymentAmount: chargeAmount,
          refundable: charge ? state.refunds.refundable(charge.id, chargeAmount) : 0,
          amount: input.data.amount_cents,
          fullOnly: true,
        });
        if (refusal || !charge) return REFUND_REFUSAL_ANSWERS[refusal ?? 'not_paid'];
        const now = new Date().toISOString();
        const wire: WireRefund = {
          id: newId('rf_'),
          charge_id: charge.id,
          checkout_link_id: link?.id ?? null,
          amount_cents: input.data.amount_cents,
          status: REFUND_STATUS.pending,
          reason: input.data.reason ?? null,
          failure_reason: null,
          created_at: now,
          updated_at: now,
        };
        const refund = state.refunds.add({ ref: wire.id, aliases: [], paymentRef: charge.id, amount: wire.amount_cents, state: 'pending', wire }, `refunds:${key}`);
        state.created.refunds += 1;
        if (state.refunds.settlement === 'at-once') state.moveRefund(refund, 'succeeded');
        return { status: 201, body: wire };
      },
    },
    {
      method: 'GET',
      pattern: '/v2/refunds/:id',
      operation: 'getRefund',
      handler: (req) => {
        const refund = state.refunds.get(req.params.id ?? '');
        return refund ? { status: 200, body: refund.wire } : errorResponse(404, 'not_found', 'Refund not found');
      },
    },
    {
      method: 'GET',
      pattern: '/v2/subscriptions/:id',
      operation: 'getSubscription',
      handler: (req) => {
        const subscription = state.subscriptions.get(req.params.id ?? '');
        return subscription ? { status: 200, body: subscription } : errorResponse(404, 'not_found', 'Subscription not found');
      },
    },
    {
      method: 'POST',
      pattern: '/v2/subscriptions/:id/cancel',
      operation: 'cancelSubscription',
      handler: (req) => {
        const subscription = state.subscriptions.get(req.params.id ?? '');
        if (!subscription) return errorResponse(404, 'not_found', 'Subscription not found');
        if (!OPEN_SUBSCRIPTION.includes(subscription.status)) return errorResponse(409, 'subscription_ended', `Subscription is ${subscription.status}`);
        state.setSubscription(subscription, { status: 'canceled', canceled_at: new Date().toISOString(), current_period_end: null });
        return { status: 200, body: subscription };
      },
    },
  ];
}

/** What a browser opens: the hosted checkout pages. */
export function pageRoutes(state: GatewayCState, handle: () => GatewaySimulator): SimRoute[] {
  return hostedCheckoutRoutes({
    pattern: '/pay/:ref',
    brand: { title: 'Gateway C Checkout', accent: '#c2410c' },
    handle,
    view(ref) {
      const link = state.links.get(ref);
      if (!link) return null;
      const info = state.pageInfo.get(ref);
      return {
        kind: link.type === 'single' ? 'payment' : 'subscription',
        amount: link.amount_cents,
        installments: link.installments ?? 1,
        interval: link.plan?.interval ?? null,
        trialDays: link.plan?.trial_days ?? 0,
        description: info?.description ?? null,
        customerName: info?.customerName ?? null,
        open: link.status === 'open',
        rawStatus: link.status,
        returnUrl: link.redirect_url,
      };
    },
    returnTo: (returnUrl, ref, outcome, subscriptionRef) =>
      withParams(returnUrl, { checkout_link_id: ref, result: REDIRECT_RESULT[outcome], subscription_id: subscriptionRef }),
  });
}
