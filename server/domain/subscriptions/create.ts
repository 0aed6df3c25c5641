/**
 * POST /v1/subscriptions, top to bottom like a payment's create: a repeat
 * answers the subscription of its externalId; a new one is checked, routed by
 * the SUBSCRIPTION rule (card only), inserted holding its registration lease,
 * sent to its gateway and committed with its events (registration/).
 */
import type { z } from 'zod';
import type { CreateSubscriptionInput as CreateSubscriptionBody } from '../../contract/schemas/subscription';
import { Subscription } from './subscription';
import type { CreateSubscriptionInput, GatewayPlan, SubscriptionSnapshot } from '../../gateways';
import { assertBillingActive, BILLING_GATE } from '../billing';
import { gatewayCustomer, storedCustomer } from '../customer';
import { GATEWAY_CALLS } from '../gateway-calls';
import { assertMatchesPlan, GATEWAY_REQUIREMENTS, subscriptionPlanFor } from '../gateway-requirements';
import { raises } from '../raises';
import { assertReturnUrlAllowed, RETURN_URL } from '../return-url';
import { answerWinner, CREATE_ONCE, insertWithLease, registerAtGateway, replayExisting, type Created, type RegistrationSteps } from '../registration/create-once';
import { gatewayIdempotencyKey, requestFingerprint } from '../registration/idempotency';
import type { RequestContext } from '../request-context';
import { subscriptionByExternalId } from './repository';
import { ROUTE_NEW, type Route } from '../routing';
import { isRefusal } from '../refusal';
import { initialSubscriptionStatus } from './subscription';

export type CreateSubscriptionRequest = z.output<typeof CreateSubscriptionBody>;

export const CREATE_SUBSCRIPTION = raises([], RETURN_URL, BILLING_GATE, ROUTE_NEW, GATEWAY_REQUIREMENTS, GATEWAY_CALLS.getPlan, CREATE_ONCE, GATEWAY_CALLS.createSubscription);

/** How a subscription is registered at its gateway (also used by reconciliation to finish an interrupted create). */
export const subscriptionRegistration: RegistrationSteps<Subscription, CreateSubscriptionInput, SubscriptionSnapshot> = {
  entity: Subscription,
  byExternalId: subscriptionByExternalId,
  call: (adapter, request) => adapter.createSubscription(request),
  register: (subscription, snapshot) => subscription.registerAtGateway(snapshot),
};

interface GatewayRequirements {
  planId: string | null;
  plan: GatewayPlan | null;
  /** The plan read failed at the gateway: answered after billing and routing. */
  unreadPlan: unknown;
}

/** What the routed gateway requires of the request (400 when it does not fit); a failure to read the plan is kept for its turn. */
async function gatewayRequirements(route: Route, request: CreateSubscriptionRequest): Promise<GatewayRequirements> {
  const planId = subscriptionPlanFor(route.gateway, { phone: request.customer.phone, planId: request.gateway?.gateway_c?.planId });
  if (!planId) return { planId, plan: null, unreadPlan: null };
  try {
    return { planId, plan: await assertMatchesPlan(route.adapter, planId, request), unreadPlan: null };
  } catch (error) {
    if (isRefusal(error) && error.code === 'invalid_input') throw error;
    return { planId, plan: null, unreadPlan: error };
  }
}

export async function createSubscription(context: RequestContext, request: CreateSubscriptionRequest): Promise<Created<Subscription>> {
  const { em, services, principal } = context;
  const { environment, organization } = principal;
  // Validating the request (400) comes before billing (402), then routing (409), then the gateway (502): decision 5.
  assertReturnUrlAllowed(environment.kind, request.returnUrl);
  // Routing is resolved quietly first, since what the routed gateway requires (a phone, a plan that matches) is validation too.
  const routing = await services.gateways.decide(em, environment.id, 'SUBSCRIPTION');
  const requirements = routing.route ? await gatewayRequirements(routing.route, request) : null;
  assertBillingActive(organization);
  // A trial left out was stored as 0 before it could mean "the plan's": the fingerprint keeps reading it so.
  const create = { externalId: request.externalId, fingerprint: requestFingerprint({ ...request, trialDays: request.trialDays ?? 0 }) };

  const replayed = await replayExisting(context, subscriptionRegistration, create);
  if (replayed) return replayed;

  if (routing.refusal) throw routing.refusal;
  const { route } = routing;
  // A plan that could not be read is the gateway's failure (502): it comes last.
  if (requirements!.unreadPlan) throw requirements!.unreadPlan;
  const { planId, plan } = requirements!;
  // Where a plan fixes the trial, the subscription says the plan's (the request's, when given, was checked against it).
  const trialDays = plan ? plan.trialDays : (request.trialDays ?? 0);
  const gatewayRequest: CreateSubscriptionInput = {
    idempotencyKey: gatewayIdempotencyKey('subscription', environment.id, request.externalId),
    amount: request.amount,
    interval: request.interval,
    trialDays,
    customer: gatewayCustomer(request.customer),
    planId,
    ...(request.returnUrl !== undefined ? { returnUrl: request.returnUrl } : {}),
  };
  const now = services.now();
  const subscription = em.create(
    Subscription,
    {
      environment,
      externalId: request.externalId,
      gateway: route.gateway,
      amount: request.amount,
      currency: request.currency,
      interval: request.interval,
      trialDays,
      status: initialSubscriptionStatus(trialDays),
      trialEndsAt: trialDays > 0 ? new Date(now.getTime() + trialDays * 86_400_000) : null,
      planId,
      ...storedCustomer(request.customer),
      metadata: request.metadata ?? null,
      requestHash: create.fingerprint,
    },
    // Written by insertWithLease's own statement, never by a flush of this unit of work.
    { persist: false },
  );
  if (!(await insertWithLease(context, Subscription, subscription, gatewayRequest))) return answerWinner(context, subscriptionRegistration, create);
  return { resource: await registerAtGateway(context, subscriptionRegistration, subscription, route.adapter, gatewayRequest), replayed: false };
}
