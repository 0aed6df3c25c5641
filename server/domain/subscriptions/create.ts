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
import { GATEWAY_CALLS, gatewayFailureIn, refusalOf, refusedByTheGateway } from '../gateway-calls';
import { assertMatchesPlan, GATEWAY_REQUIREMENTS, subscriptionPlanFor } from '../gateway-requirements';
import { raises } from '../raises';
import { assertReturnUrlAllowed, RETURN_URL } from '../return-url';
import { answerWinner, CREATE_ONCE, insertWithLease, replayExisting, type Created, type RegistrationSteps } from '../registration/create-once';
import { registerRouted, type Candidate, type OrphanSweep } from '../routing/fallback';
import { startTrace, unfitReason } from '../routing/candidates';
import { gatewayIdempotencyKey, requestFingerprint } from '../registration/idempotency';
import type { RequestContext } from '../request-context';
import { subscriptionByExternalId } from './repository';
import { ROUTE_NEW, type Route } from '../routing/directory';
import { isRefusal, Refusal } from '../refusal';
import { initialSubscriptionStatus } from './subscription';

export type CreateSubscriptionRequest = z.output<typeof CreateSubscriptionBody>;

export const CREATE_SUBSCRIPTION = raises(['gateway_error'], RETURN_URL, BILLING_GATE, ROUTE_NEW, GATEWAY_REQUIREMENTS, GATEWAY_CALLS.getPlan, CREATE_ONCE, GATEWAY_CALLS.createSubscription);

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
    // The plan does not match the request, or the gateway refused the read as asked: the request's to fix (400).
    if ((isRefusal(error) && error.code === 'invalid_input') || refusedByTheGateway(error)) throw error;
    return { planId, plan: null, unreadPlan: error };
  }
}

export async function createSubscription(context: RequestContext, request: CreateSubscriptionRequest): Promise<Created<Subscription>> {
  const { em, services, principal } = context;
  const { environment, organization } = principal;
  // Validating the request (400) comes before billing (402), then routing (409), then the gateway (502): decision 5.
  assertReturnUrlAllowed(environment.kind, request.returnUrl);
  // Routing is resolved quietly first, since what the routed gateway requires (a phone, a plan that matches) is validation too.
  const routing = await services.gateways.plan(em, environment.id, 'SUBSCRIPTION', request.externalId);
  const first = routing.routes[0];
  const requirements = first ? await gatewayRequirements(first, request) : null;
  assertBillingActive(organization);
  // A trial left out was stored as 0 before it could mean "the plan's": the fingerprint keeps reading it so.
  const create = { externalId: request.externalId, fingerprint: requestFingerprint({ ...request, trialDays: request.trialDays ?? 0 }) };

  const replayed = await replayExisting(context, subscriptionRegistration, create);
  if (replayed) return replayed;

  if (routing.refusal) throw routing.refusal;
  // The first gateway's plan that could not be read is its failure (502), answered last, unless a fallback can take the create.
  if (requirements!.unreadPlan && routing.routes.length === 1) throw requirements!.unreadPlan;
  const now = services.now();
  const candidates: Candidate<CreateSubscriptionInput>[] = [];
  for (const route of routing.routes) {
    const fitting = route === first ? requirements! : await fallbackRequirements(route, request);
    if ('unfit' in fitting) {
      candidates.push({ route, request: null as never, unfit: fitting.unfit });
      continue;
    }
    if (fitting.unreadPlan) {
      candidates.push({ route, request: null as never, unfit: `its plan could not be read (${planReadFailure(fitting.unreadPlan)})` });
      continue;
    }
    const { planId, plan } = fitting;
    // Where a plan fixes the trial, the subscription says the plan's (the request's, when given, was checked against it).
    const trialDays = plan ? plan.trialDays : (request.trialDays ?? 0);
    candidates.push({
      route,
      request: {
        idempotencyKey: gatewayIdempotencyKey('subscription', environment.id, request.externalId),
        amount: request.amount,
        interval: request.interval,
        trialDays,
        customer: gatewayCustomer(request.customer),
        planId,
        ...(request.returnUrl !== undefined ? { returnUrl: request.returnUrl } : {}),
      },
      columns: { planId, trialDays, status: initialSubscriptionStatus(trialDays), trialEndsAt: trialDays > 0 ? new Date(now.getTime() + trialDays * 86_400_000) : null },
    });
  }
  const start = candidates.find((candidate) => !candidate.unfit);
  if (!start) throw requirements!.unreadPlan ?? new Refusal('gateway_error', { provider: first!.gateway });
  const subscription = em.create(
    Subscription,
    {
      environment,
      externalId: request.externalId,
      gateway: start.route.gateway,
      amount: request.amount,
      currency: request.currency,
      interval: request.interval,
      ...(start.columns as Pick<Subscription, 'planId' | 'trialDays' | 'status' | 'trialEndsAt'>),
      ...storedCustomer(request.customer),
      metadata: request.metadata ?? null,
      requestHash: create.fingerprint,
      routingTrace: startTrace(routing),
    },
    // Written by insertWithLease's own statement, never by a flush of this unit of work.
    { persist: false },
  );
  if (!(await insertWithLease(context, Subscription, subscription, start.request))) return answerWinner(context, subscriptionRegistration, create);
  return { resource: await registerRouted(context, subscriptionRegistration, subscription, candidates, subscription.routingTrace!, subscriptionOrphans), replayed: false };
}

/** Why a plan could not be read, for the trace: the code the merchant would be answered. */
function planReadFailure(error: unknown): string {
  const failure = gatewayFailureIn(error);
  if (failure) return refusalOf(failure).code;
  return isRefusal(error) ? error.code : 'failed';
}

/** A fallback gateway's requirements; a request that does not fit it passes it over (the first gateway's answered 400). */
async function fallbackRequirements(route: Route, request: CreateSubscriptionRequest): Promise<GatewayRequirements | { unfit: string }> {
  try {
    return await gatewayRequirements(route, request);
  } catch (error) {
    const reason = unfitReason(() => {
      throw error;
    });
    return { unfit: reason ?? 'the request does not fit this gateway' };
  }
}

/**
 * What an abandoned subscription attempt may have left at its gateway
 * (decision 21), found again by its idempotency key: a checkout link is
 * deactivated (gateway_c), a subscription canceled at once elsewhere.
 */
const subscriptionOrphans: OrphanSweep<CreateSubscriptionInput> = {
  immediate: () => null,
  async settle(route, request) {
    const orphan = await route.adapter.createSubscription(request);
    if (orphan.status === 'canceled') return { fate: 'canceled', ref: orphan.gatewayRef };
    if (route.adapter.deactivateSubscriptionCheckout) {
      const deactivation = await route.adapter.deactivateSubscriptionCheckout(orphan.gatewayRef);
      if (deactivation.outcome === 'completed') await route.adapter.cancelSubscription(deactivation.subscription.gatewayRef, { atPeriodEnd: false });
    } else {
      await route.adapter.cancelSubscription(orphan.gatewayRef, { atPeriodEnd: false });
    }
    return { fate: 'canceled', ref: orphan.gatewayRef };
  },
};
