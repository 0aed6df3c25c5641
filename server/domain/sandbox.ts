/**
 * Driving the sandbox simulators that run inside the embedded demo service:
 * the operator says what the customer or the gateway did to one of our
 * payments or subscriptions, and the simulator does it and sends its webhook,
 * like a real gateway would.
 */
import type { GatewayName } from '../contract/enums';
import type { PaymentOutcome, SubscriptionOutcome } from '../contract/sandbox-controls';
import type { SandboxSimulators } from './sandbox-seam';
import { gatewayFailureIn, refusalOf } from './gateway-calls';
import { isRefusal, notFound, operatorRefusal } from './refusal';
import { CreatePaymentInput } from '../contract/schemas/payment';
import { CreateSubscriptionInput } from '../contract/schemas/subscription';
import { Environment, OutboxEvent } from '../db/entities';
import { Payment } from './payments/payment';
import { Subscription } from './subscriptions/subscription';
import type { EntityManager } from '../db/orm';
import type { Services } from '../services';
import type { WebhookEventType } from '../contract/event-types';
import { randomToken } from '../contract/ids';
import { cancelPayment } from './payments/cancel';
import { createRefund } from './refunds/create';
import { Refund } from './refunds/refund';
import { refundBody } from './refunds/view';
import { createPayment } from './payments/create';
import { paymentBody } from './payments/view';
import type { RequestContext } from './request-context';
import { cancelSubscription } from './subscriptions/cancel';
import { createSubscription } from './subscriptions/create';
import { subscriptionBody } from './subscriptions/view';

/**
 * The simulators that play `gateway` (for `environmentId`'s accounts, where
 * each sandbox environment has its own), or the operator's refusal when this
 * service runs none for it.
 */
export function sandboxOf(services: Services, gateway: GatewayName, environmentId?: string): SandboxSimulators {
  const all = services.sandbox;
  const sandbox = environmentId && all?.forEnvironment ? all.forEnvironment(environmentId) : all;
  if (!sandbox?.running().some((running) => running.gateway === gateway)) {
    throw operatorRefusal(
      'unavailable',
      all && environmentId
        ? `No simulator of ${gateway} plays this environment's ${gateway} account: it is configured with credentials of a real gateway, or this environment was not wired to the simulators.`
        : `No simulator of ${gateway} runs in this service; only the embedded demo and development run them.`,
    );
  }
  return sandbox;
}

/** Whether simulators play this environment's gateways (the dashboard offers the simulator actions only then). */
export function simulatedGateways(services: Services, environmentId: string): GatewayName[] {
  const all = services.sandbox;
  const sandbox = all?.forEnvironment ? all.forEnvironment(environmentId) : all;
  return (sandbox?.running() ?? []).map((running) => running.gateway);
}

export const runningSimulators = (services: Services) => services.sandbox?.running() ?? [];

/** The simulator refused the action in the record's state: the operator hears a conflict that says why, not an internal failure. */
function refusedAsConflict(what: string, id: string, reason: string | null): void {
  if (reason) throw operatorRefusal('conflict', `${what} ${id} cannot do that now: the sandbox gateway says its ${reason}.`);
}

export async function simulatePayment(em: EntityManager, services: Services, paymentId: string, outcome: PaymentOutcome) {
  const payment = await em.findOne(Payment, { id: paymentId });
  if (!payment) throw notFound('Payment', paymentId);
  const sandbox = sandboxOf(services, payment.gateway, payment.environment.id);
  if (!payment.gatewayRef) throw operatorRefusal('unavailable', `Payment ${payment.id} is not registered at its gateway.`);
  refusedAsConflict('Payment', payment.id, await sandbox.payment(payment.gateway, payment.gatewayRef, outcome));
  return paymentBody(await em.fork().findOneOrFail(Payment, { id: payment.id }));
}

export async function simulateSubscription(em: EntityManager, services: Services, subscriptionId: string, outcome: SubscriptionOutcome) {
  const subscription = await em.findOne(Subscription, { id: subscriptionId });
  if (!subscription) throw notFound('Subscription', subscriptionId);
  const sandbox = sandboxOf(services, subscription.gateway, subscription.environment.id);
  if (!subscription.gatewayRef) throw operatorRefusal('unavailable', `Subscription ${subscription.id} is not registered at its gateway.`);
  refusedAsConflict('Subscription', subscription.id, await sandbox.subscription(subscription.gateway, subscription.gatewayRef, outcome));
  return subscriptionBody(await em.fork().findOneOrFail(Subscription, { id: subscription.id }));
}

/**
 * The sandbox environment an operator's development tool (webhook listen,
 * trigger) acts on: the one named, or, when none is named, the only sandbox
 * environment there is (the embedded demo). Production environments are
 * refused: these tools create test payments and expose every event.
 */
export async function sandboxEnvironment(em: EntityManager, environmentId?: string): Promise<Environment> {
  const populate = ['project', 'project.organization'] as const;
  if (environmentId) {
    const environment = await em.findOne(Environment, { id: environmentId }, { populate });
    if (!environment) throw notFound('Environment', environmentId);
    if (environment.kind !== 'sandbox') {
      throw operatorRefusal('invalid', `Environment ${environment.id} is a production environment; only sandbox environments can be listened to or triggered.`);
    }
    return environment;
  }
  const sandboxes = await em.find(Environment, { kind: 'sandbox' }, { populate, limit: 2, orderBy: { createdAt: 'asc' } });
  if (sandboxes.length === 1) return sandboxes[0]!;
  throw operatorRefusal(
    'invalid',
    sandboxes.length === 0 ? 'There is no sandbox environment; create one (env create --kind sandbox).' : 'There are several sandbox environments; name one with --env env_….',
  );
}

/** One step of a trigger, as printed to the operator. */
export interface TriggerStep {
  action: string;
  resourceId: string;
  status: string;
}

export interface TriggerResult {
  eventType: WebhookEventType;
  environmentId: string;
  resourceId: string;
  steps: TriggerStep[];
  /** The events committed for what the trigger created, in commit order. */
  events: { id: string; type: string; resourceId: string }[];
}

type PaymentRecipe = {
  method: 'pix' | 'card';
  then?: PaymentOutcome | 'cancel';
  /** Once paid, the payment is refunded in full, and the refund settled or failed at the gateway (null: left as the gateway answered). */
  refund?: 'settle' | 'fail' | null;
};
type SubscriptionRecipe = { subscription: true; then?: Exclude<SubscriptionOutcome, 'complete-checkout' | 'end-trial'> | 'cancel' };

/**
 * What it takes to produce each event type of the contract: a resource
 * created through the same use cases as /v1, then what the customer or the
 * gateway does at the sandbox simulator, or a cancel. A Pix comes back
 * pending with its code, a card waits at its checkout, so each event type
 * picks the method that reaches it.
 */
const RECIPES: Record<WebhookEventType, PaymentRecipe | SubscriptionRecipe> = {
  'payment.created': { method: 'card' },
  'payment.pending': { method: 'pix' },
  'payment.paid': { method: 'pix', then: 'pay' },
  'payment.failed': { method: 'card', then: 'decline' },
  'payment.canceled': { method: 'card', then: 'cancel' },
  'payment.expired': { method: 'pix', then: 'expire' },
  'subscription.created': { subscription: true },
  'subscription.renewed': { subscription: true, then: 'renew' },
  'subscription.payment_failed': { subscription: true, then: 'charge-failure' },
  'subscription.past_due': { subscription: true, then: 'past-due' },
  'subscription.canceled': { subscription: true, then: 'cancel' },
  'refund.created': { method: 'pix', then: 'pay', refund: null },
  'refund.succeeded': { method: 'pix', then: 'pay', refund: 'settle' },
  'refund.failed': { method: 'pix', then: 'pay', refund: 'fail' },
};

/** A customer every gateway accepts: gateway_c needs a phone. */
const TRIGGER_CUSTOMER = { name: 'Maria Silva', email: 'maria@example.com', document: '12345678909', phone: '11987654321' };
/** The plan gateway_c subscriptions are created under in its sandbox (ignored by the other gateways). */
const TRIGGER_PLAN = { amount: 2990, interval: 'monthly', planId: 'plan_monthly_basic' } as const;

/** A /v1 refusal during a trigger (billing, quota, routing, the gateway) is the operator's to read, not an internal failure. */
async function asOperator<T>(action: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    // A gateway's failure is worded as /v1 would answer it: this is the trigger's edge.
    const failure = gatewayFailureIn(error);
    const refusal = failure ? refusalOf(failure) : error;
    if (isRefusal(refusal)) throw operatorRefusal('unavailable', `${action}: ${refusal.code}: ${refusal.message}`);
    throw error;
  }
}

/** A pending refund settles or fails at its gateway's simulator, which sends its notification. */
export async function simulateRefund(em: EntityManager, services: Services, refundId: string, outcome: 'settle' | 'fail') {
  const refund = await em.findOne(Refund, { id: refundId });
  if (!refund) throw notFound('Refund', refundId);
  const sandbox = sandboxOf(services, refund.gateway, refund.environment.id);
  if (!refund.gatewayRef) throw operatorRefusal('unavailable', `Refund ${refund.id} is not registered at its gateway.`);
  refusedAsConflict('Refund', refund.id, await sandbox.refund(refund.gateway, refund.gatewayRef, outcome));
  return refundBody(await em.fork().findOneOrFail(Refund, { id: refund.id }));
}

/** Refunds a paid payment in full through the /v1 use case, then settles or fails the refund at the simulator; answers the refund's id. */
async function triggerRefund(em: EntityManager, context: RequestContext, paymentId: string, externalId: string, outcome: 'settle' | 'fail' | null, steps: TriggerStep[]): Promise<string> {
  const created = await asOperator('refund payment', () => createRefund(context, paymentId, { externalId }));
  const refund = created.resource;
  steps.push({ action: 'refund', resourceId: refund.id, status: refund.status });
  // A simulator set to settle refunds at once answered it final already.
  if (outcome && refund.status === 'pending') {
    const body = await simulateRefund(em.fork(), context.services, refund.id, outcome);
    steps.push({ action: `sim refund ${outcome}`, resourceId: refund.id, status: body.status });
  }
  return refund.id;
}

/**
 * Produces an event of the given type in a sandbox environment, the way a
 * merchant's integration and its customer would: the payment or subscription
 * is created with the environment's routing, billing and quota, through the
 * /v1 use cases, and the sandbox simulator of its gateway acts on it.
 */
export async function triggerEvent(em: EntityManager, services: Services, input: { eventType: WebhookEventType; environmentId?: string }): Promise<TriggerResult> {
  const environment = await sandboxEnvironment(em, input.environmentId);
  const principal = { environment, project: environment.project, organization: environment.project.organization };
  const context = (): RequestContext => ({ em: em.fork(), services, principal });
  const externalId = `trigger-${input.eventType.replace('.', '-')}-${randomToken(10)}`;
  const recipe = RECIPES[input.eventType];
  const steps: TriggerStep[] = [];
  let resourceId: string;

  if ('method' in recipe) {
    const request = CreatePaymentInput.parse({
      amount: recipe.method === 'pix' ? 1990 : 5000,
      method: recipe.method,
      externalId,
      customer: TRIGGER_CUSTOMER,
      ...(recipe.method === 'card' ? { card: { installments: 1 } } : {}),
    });
    const created = await asOperator('create payment', () => createPayment(context(), request));
    resourceId = created.resource.id;
    steps.push({ action: `create ${recipe.method} payment`, resourceId, status: created.resource.status });
    if (recipe.then === 'cancel') {
      const canceled = await asOperator('cancel payment', () => cancelPayment(context(), resourceId));
      steps.push({ action: 'cancel', resourceId, status: canceled.status });
    } else if (recipe.then) {
      const body = await simulatePayment(em.fork(), services, resourceId, recipe.then);
      steps.push({ action: `sim ${recipe.then}`, resourceId, status: body.status });
    }
    if (recipe.refund !== undefined) resourceId = await triggerRefund(em, context(), resourceId, `${externalId}-refund`, recipe.refund, steps);
  } else {
    const request = CreateSubscriptionInput.parse({
      amount: TRIGGER_PLAN.amount,
      interval: TRIGGER_PLAN.interval,
      externalId,
      customer: TRIGGER_CUSTOMER,
      gateway: { gateway_c: { planId: TRIGGER_PLAN.planId } },
    });
    const created = await asOperator('create subscription', () => createSubscription(context(), request));
    resourceId = created.resource.id;
    steps.push({ action: 'create subscription', resourceId, status: created.resource.status });
    // On gateway_c a subscription starts as a checkout link; it exists (and is announced) once the customer completes it.
    if (created.resource.awaitingCheckout) {
      const body = await simulateSubscription(em.fork(), services, resourceId, 'complete-checkout');
      steps.push({ action: 'sim complete-checkout', resourceId, status: body.status });
    }
    if (recipe.then === 'cancel') {
      const canceled = await asOperator('cancel subscription', () => cancelSubscription(context(), resourceId, false));
      steps.push({ action: 'cancel', resourceId, status: canceled.status });
    } else if (recipe.then) {
      const body = await simulateSubscription(em.fork(), services, resourceId, recipe.then);
      steps.push({ action: `sim ${recipe.then}`, resourceId, status: body.status });
    }
  }

  const reader = em.fork();
  const linkedPayments = await reader.find(Payment, { environment: environment.id, subscriptionId: resourceId }, { fields: ['id'] });
  // A refund's trigger also shows the payment it refunds.
  const refunded = await reader.findOne(Refund, { id: resourceId, environment: environment.id }, { fields: ['payment'] });
  if (refunded) linkedPayments.push(refunded.payment);
  const events = await reader.find(
    OutboxEvent,
    { environment: environment.id, resourceId: { $in: [resourceId, ...linkedPayments.map((payment) => payment.id)] } },
    { orderBy: { sequence: 'asc' } },
  );
  if (!events.some((event) => event.type === input.eventType)) {
    // The environment's routing or a fault at the simulator led elsewhere: say so rather than pretend.
    throw operatorRefusal('unavailable', `No ${input.eventType} was produced (${steps.map((step) => `${step.action} → ${step.status}`).join(', ')}); check the environment's routing and simulator faults.`);
  }
  return {
    eventType: input.eventType,
    environmentId: environment.id,
    resourceId,
    steps,
    events: events.map((event) => ({ id: event.id, type: event.type, resourceId: event.resourceId })),
  };
}
