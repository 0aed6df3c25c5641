/**
 * POST /v1/subscriptions/{id}/cancel: immediately, or at the end of the
 * current cycle where the gateway supports it. Checks in order: not found,
 * already ended, a period to end (a checkout never completed has none),
 * the gateway's support for ending at the period, a gateway reference.
 * A gateway_c subscription whose checkout was never completed is canceled
 * by deactivating its checkout link, so the link can no longer be paid.
 */
import { Refusal } from '../refusal';
import { Subscription } from './subscription';
import { gatewayRead } from '../report-order';
import { GATEWAY_CALLS } from '../gateway-calls';
import { applyLocked } from '../locked-apply';
import { raises } from '../raises';
import type { RequestContext } from '../request-context';
import { ROUTE_EXISTING } from '../routing/directory';
import { FIND_SUBSCRIPTION, findSubscription } from './repository';

export const CANCEL_SUBSCRIPTION = raises(['already_canceled', 'invalid_input', 'missing_gateway_ref'], FIND_SUBSCRIPTION, ROUTE_EXISTING, GATEWAY_CALLS.cancelSubscription);

export async function cancelSubscription(context: RequestContext, id: string, atPeriodEnd: boolean): Promise<Subscription> {
  const { em, services, principal } = context;
  const subscription = await findSubscription(em, principal.environment.id, id);
  if (subscription.status === 'canceled') throw new Refusal('already_canceled', { status: subscription.status });
  const route = await services.gateways.forExisting(em, principal.environment.id, subscription.gateway);
  if (atPeriodEnd && subscription.awaitingCheckout) {
    throw new Refusal('invalid_input', { issues: [{ path: ['atPeriodEnd'], message: 'the customer has not completed checkout, so there is no period to end; cancel now instead' }] });
  }
  if (atPeriodEnd && !route.adapter.capabilities.subscriptionCancelAtPeriodEnd) {
    throw new Refusal('invalid_input', { issues: [{ path: ['atPeriodEnd'], message: `${route.gateway} only cancels immediately` }] });
  }
  if (!subscription.gatewayRef) {
    throw new Refusal('missing_gateway_ref', {}, 'The subscription is not registered at its gateway yet; repeat the create with the same externalId.');
  }
  // The gateway's answer is its state as of the call: taken from when the call started, so no webhook sent meanwhile counts as older.
  const calledAt = services.now();
  const snapshot = await route.adapter.cancelSubscription(subscription.gatewayRef!, { atPeriodEnd });
  return applyLocked(em, services, Subscription, subscription.id, (current) => current.applyGatewaySnapshot(snapshot, gatewayRead(calledAt)));
}
