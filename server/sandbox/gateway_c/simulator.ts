/** In-memory gateway_c speaking gateways/gateway_c/PROTOCOL.md over real HTTP, with the common `/_sim/` control surface. */
import { z } from 'zod';
import { hostedCheckoutRoutes, withParams, type CheckoutOutcome } from '../simulator/checkout-page';
import { buildHandle, controlRoutes, type GatewaySimulator, type SimulatorActions, type SimulatorOptions } from '../simulator/control';
import { addDays, addInterval, DEFAULT_CARD, found, newId, requireOpen, returnUrlSchema } from '../simulator/fixtures';
import { SimControlError, startSimServer, type SimProtocol, type SimRequest, type SimResponse, type SimRoute } from '../simulator/server';
import { WebhookDispatcher } from '../simulator/webhooks';
import { hmacSha256, headerValue, safeEqual } from '../../gateways/signing';
import {
  credentialsSchema,
  SIGNATURE_HEADER,
  type GatewayCCredentials,
  type WireCharge,
  type WireCheckoutLink,
  type WirePlan,
  type WireSubscription,
} from '../../gateways/gateway_c/wire';

const MAX_INSTALLMENTS = 24;
const LINK_LIFETIME_MS = 24 * 3_600_000;
const OPEN_LINK = ['open', 'processing'];
const OPEN_SUBSCRIPTION = ['trialing', 'active', 'past_due', 'unpaid'];

/** gateway_c's words for a checkout outcome in the return address (`result`). */
const REDIRECT_RESULT: Record<CheckoutOutcome, string> = { paid: 'success', declined: 'declined', abandoned: 'abandoned' };

/** Plans exist at the gateway before any subscription; these are seeded in every simulator. */
export const SEEDED_PLANS: readonly WirePlan[] = [
  { id: 'plan_monthly_basic', name: 'Basic (monthly)', amount_cents: 2990, interval: 'monthly', trial_days: 0 },
  { id: 'plan_monthly_trial', name: 'Basic with 14-day trial', amount_cents: 2990, interval: 'monthly', trial_days: 14 },
  { id: 'plan_yearly_pro', name: 'Pro (yearly)', amount_cents: 29900, interval: 'yearly', trial_days: 0 },
];

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

export async function startGatewayCSimulator(options: SimulatorOptions<GatewayCCredentials>): Promise<GatewaySimulator> {
  const credentials = credentialsSchema.parse(options.credentials);
  const plans = new Map(SEEDED_PLANS.map((plan) => [plan.id, plan]));
  const links = new Map<string, WireCheckoutLink>();
  const subscriptions = new Map<string, WireSubscription>();
  const charges = new Map<string, WireCharge>();
  const idempotency = new Map<string, string>();
  /** What the hosted page shows beyond the wire object. */
  const pageInfo = new Map<string, { description: string | null; customerName: string }>();
  /** Subscription links whose next deactivation races a checkout completing (raceNextDeactivation). */
  const racingLinks = new Set<string>();
  const created = { payments: 0, subscriptions: 0, subscriptionCharges: 0 };
  let baseUrl = '';

  const webhooks = new WebhookDispatcher(options.webhookUrl ?? null, (body) => ({
    [SIGNATURE_HEADER.toLowerCase()]: hmacSha256(credentials.webhookSecret, body, 'base64'),
  }));
  const emit = (event: string, data: Record<string, unknown>) =>
    webhooks.emit(event, { id: newId('wh_'), event, occurred_at: new Date().toISOString(), data });

  const protocol: SimProtocol = {
    authenticate(req) {
      const key = headerValue(req.headers, 'x-api-key') ?? '';
      const secret = headerValue(req.headers, 'x-api-secret') ?? '';
      // Both compared, always, so timing does not tell which one was wrong.
      const keyOk = safeEqual(key, credentials.apiKey);
      const secretOk = safeEqual(secret, credentials.apiSecret);
      return keyOk && secretOk ? null : errorResponse(401, 'unauthenticated', 'Invalid API credentials');
    },
    errorResponse: (status, message) => errorResponse(status, status >= 500 ? 'internal_error' : 'bad_request', message),
    validationResponse: (field, message) => refuse([{ field, message }]),
    defaultValidationField: (operation) =>
      operation === 'createPayment' || operation === 'createSubscription' ? 'customer.phone' : 'id',
  };

  const linkOperation = (kind: 'create' | 'get') => (req: SimRequest) => {
    const type = kind === 'create' ? (req.body as { type?: unknown } | undefined)?.type : links.get(req.params.id ?? '')?.type;
    if (type === 'subscription') return kind === 'create' ? 'createSubscription' : 'getSubscription';
    return kind === 'create' ? 'createPayment' : 'getPayment';
  };

  function setLink(link: WireCheckoutLink, changes: Partial<WireCheckoutLink>): void {
    Object.assign(link, changes);
    emit('checkout_link.updated', { checkout_link: link });
  }

  function setSubscription(subscription: WireSubscription, changes: Partial<WireSubscription>): void {
    Object.assign(subscription, changes);
    emit('subscription.updated', { subscription });
  }

  /** A subscription action names the `sub_` or the `pl_` it came from. */
  function subscriptionFor(ref: string): WireSubscription {
    const viaLink = links.get(ref)?.subscription_id;
    return found(subscriptions, viaLink ?? ref, 'subscription');
  }

  function planOf(subscription: WireSubscription): WirePlan {
    return plans.get(subscription.plan_id) ?? SEEDED_PLANS[0]!;
  }

  function charge(subscription: WireSubscription, status: 'paid' | 'failed'): WireCharge {
    const record: WireCharge = {
      id: newId('ch_'),
      status,
      amount_cents: planOf(subscription).amount_cents,
      subscription_id: subscription.id,
      card: status === 'paid' ? { brand: DEFAULT_CARD.brand, last_four: DEFAULT_CARD.last4 } : null,
      created_at: new Date().toISOString(),
    };
    charges.set(record.id, record);
    created.subscriptionCharges += 1;
    return record;
  }

  const api: SimRoute[] = [
    {
      method: 'GET',
      pattern: '/v2/plans',
      operation: 'getPlan',
      handler: () => ({ status: 200, body: { data: [...plans.values()] } }),
    },
    {
      method: 'GET',
      pattern: '/v2/plans/:id',
      operation: 'getPlan',
      handler: (req) => {
        const plan = plans.get(req.params.id ?? '');
        return plan ? { status: 200, body: plan } : errorResponse(404, 'not_found', 'Plan not found');
      },
    },
    {
      method: 'POST',
      pattern: '/v2/checkout-links',
      operation: linkOperation('create'),
      handler: (req) => {
        const key = headerValue(req.headers, 'x-idempotency-key');
        if (!key) return errorResponse(400, 'idempotency_key_required', 'X-Idempotency-Key is required');
        const existing = idempotency.get(key);
        if (existing !== undefined) return { status: 200, body: links.get(existing) };
        const input = linkInput.safeParse(req.body);
        if (!input.success) {
          return refuse(input.error.issues.map((issue) => ({ field: issue.path.join('.') || 'body', message: issue.message })));
        }
        let plan: WirePlan | null = null;
        if (input.data.type === 'subscription') {
          plan = plans.get(input.data.plan_id) ?? null;
          if (!plan) return refuse([{ field: 'plan_id', message: 'No such plan' }]);
        }
        const id = newId('pl_');
        const now = new Date();
        const link: WireCheckoutLink = {
          id,
          type: input.data.type,
          status: 'open',
          url: `${baseUrl}/pay/${id}`,
          amount_cents: input.data.type === 'single' ? input.data.amount_cents : plan!.amount_cents,
          installments: input.data.type === 'single' ? input.data.installments : null,
          plan,
          charge: null,
          subscription_id: null,
          redirect_url: input.data.redirect_url ?? null,
          created_at: now.toISOString(),
          expires_at: new Date(now.getTime() + LINK_LIFETIME_MS).toISOString(),
        };
        links.set(id, link);
        idempotency.set(key, id);
        pageInfo.set(id, { description: input.data.type === 'single' ? (input.data.description ?? null) : plan!.name, customerName: input.data.customer.name });
        if (link.type === 'single') created.payments += 1;
        else created.subscriptions += 1;
        return { status: 201, body: link };
      },
    },
    {
      method: 'GET',
      pattern: '/v2/checkout-links/:id',
      operation: linkOperation('get'),
      handler: (req) => {
        const link = links.get(req.params.id ?? '');
        return link ? { status: 200, body: link } : errorResponse(404, 'not_found', 'Checkout link not found');
      },
    },
    {
      method: 'POST',
      pattern: '/v2/checkout-links/:id/deactivate',
      operation: (req) => (links.get(req.params.id ?? '')?.type === 'subscription' ? 'cancelSubscription' : 'cancelPayment'),
      handler: (req) => {
        const link = links.get(req.params.id ?? '');
        if (!link) return errorResponse(404, 'not_found', 'Checkout link not found');
        if (link.status !== 'open') return errorResponse(409, 'link_not_open', `Checkout link is ${link.status}`);
        setLink(link, { status: 'deactivated' });
        if (!racingLinks.delete(link.id)) return { status: 200, body: link };
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
        const record = charges.get(req.params.id ?? '');
        return record ? { status: 200, body: record } : errorResponse(404, 'not_found', 'Charge not found');
      },
    },
    {
      method: 'GET',
      pattern: '/v2/subscriptions/:id',
      operation: 'getSubscription',
      handler: (req) => {
        const subscription = subscriptions.get(req.params.id ?? '');
        return subscription ? { status: 200, body: subscription } : errorResponse(404, 'not_found', 'Subscription not found');
      },
    },
    {
      method: 'POST',
      pattern: '/v2/subscriptions/:id/cancel',
      operation: 'cancelSubscription',
      handler: (req) => {
        const subscription = subscriptions.get(req.params.id ?? '');
        if (!subscription) return errorResponse(404, 'not_found', 'Subscription not found');
        if (!OPEN_SUBSCRIPTION.includes(subscription.status)) return errorResponse(409, 'subscription_ended', `Subscription is ${subscription.status}`);
        setSubscription(subscription, { status: 'canceled', canceled_at: new Date().toISOString(), current_period_end: null });
        return { status: 200, body: subscription };
      },
    },
  ];

  const singleLink = (ref: string) => {
    const link = found(links, ref, 'checkout link');
    if (link.type !== 'single') throw new SimControlError(409, `${ref} is a subscription checkout link`);
    return link;
  };

  const actions: SimulatorActions = {
    payPayment(ref, card) {
      const link = singleLink(ref);
      requireOpen(link.status, OPEN_LINK, 'checkout link');
      const paidWith = card ?? DEFAULT_CARD;
      const paid: WireCharge = {
        id: newId('ch_'),
        status: 'paid',
        amount_cents: link.amount_cents,
        subscription_id: null,
        card: { brand: paidWith.brand, last_four: paidWith.last4 },
        created_at: new Date().toISOString(),
      };
      charges.set(paid.id, paid);
      setLink(link, { status: 'paid', charge: paid });
    },
    declinePayment(ref) {
      const link = singleLink(ref);
      requireOpen(link.status, OPEN_LINK, 'checkout link');
      setLink(link, { status: 'declined' });
    },
    expirePayment(ref) {
      const link = found(links, ref, 'checkout link');
      if (link.status !== 'open') throw new SimControlError(409, `checkout link is ${link.status}`);
      setLink(link, { status: 'expired' });
    },
    setPaymentStatus(ref, rawStatus) {
      const record = charges.get(ref);
      if (record) {
        record.status = rawStatus;
        return;
      }
      setLink(singleLink(ref), { status: rawStatus });
    },
    completeCheckout(ref, options = {}) {
      const link = found(links, ref, 'checkout link');
      const completable = link.status === 'open' || (options.racingDeactivation === true && link.status === 'deactivated');
      if (link.type !== 'subscription' || !completable || !link.plan) {
        throw new SimControlError(409, `checkout link ${ref} cannot be completed`);
      }
      const now = new Date();
      const trialEnd = link.plan.trial_days > 0 ? addDays(now, link.plan.trial_days) : null;
      const subscription: WireSubscription = {
        id: newId('sub_'),
        status: trialEnd ? 'trialing' : 'active',
        plan_id: link.plan.id,
        checkout_link_id: link.id,
        current_period_end: (trialEnd ?? addInterval(now, link.plan.interval)).toISOString(),
        trial_ends_at: trialEnd ? trialEnd.toISOString() : null,
        canceled_at: null,
        created_at: now.toISOString(),
      };
      subscriptions.set(subscription.id, subscription);
      Object.assign(link, { status: 'completed', subscription_id: subscription.id });
      emit('subscription.created', { checkout_link_id: link.id, subscription });
      return { subscriptionRef: subscription.id };
    },
    raceNextDeactivation(ref) {
      const link = found(links, ref, 'checkout link');
      if (link.type !== 'subscription' || link.status !== 'open') throw new SimControlError(409, `checkout link ${ref} is not an open subscription link`);
      racingLinks.add(link.id);
    },
    renewSubscription(ref) {
      const subscription = subscriptionFor(ref);
      requireOpen(subscription.status, OPEN_SUBSCRIPTION, 'subscription');
      const record = charge(subscription, 'paid');
      const before = subscription.status;
      const from = subscription.current_period_end ? new Date(subscription.current_period_end) : new Date();
      Object.assign(subscription, { status: 'active', current_period_end: addInterval(from, planOf(subscription).interval).toISOString() });
      emit('charge.paid', { charge: record, subscription });
      if (before !== 'active') emit('subscription.updated', { subscription });
      return { paymentRef: record.id };
    },
    failSubscriptionCharge(ref) {
      const subscription = subscriptionFor(ref);
      requireOpen(subscription.status, OPEN_SUBSCRIPTION, 'subscription');
      const record = charge(subscription, 'failed');
      emit('charge.failed', { charge: record, subscription });
      return { paymentRef: record.id };
    },
    markPastDue(ref) {
      const subscription = subscriptionFor(ref);
      requireOpen(subscription.status, OPEN_SUBSCRIPTION, 'subscription');
      setSubscription(subscription, { status: 'past_due' });
    },
    endTrial(ref) {
      const subscription = subscriptionFor(ref);
      if (subscription.status !== 'trialing') throw new SimControlError(409, `subscription is ${subscription.status}`);
      setSubscription(subscription, { status: 'active', trial_ends_at: new Date().toISOString() });
    },
    setSubscriptionStatus(ref, rawStatus) {
      setSubscription(subscriptionFor(ref), { status: rawStatus });
    },
  };

  const checkoutPages = hostedCheckoutRoutes({
    pattern: '/pay/:ref',
    brand: { title: 'Gateway C Checkout', accent: '#c2410c' },
    handle: () => handle!,
    view(ref) {
      const link = links.get(ref);
      if (!link) return null;
      const info = pageInfo.get(ref);
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

  let handle: GatewaySimulator | undefined;
  const server = await startSimServer({
    port: options.port,
    host: options.host,
    protocol,
    routes: [...api, ...checkoutPages, ...controlRoutes(() => handle!)],
  });
  baseUrl = server.url;
  handle = buildHandle(server, webhooks, actions, () => ({ ...created }));
  return handle;
}
