/**
 * POST /v1/subscriptions/{id}/cancel: immediately, or at the end of the
 * current cycle where the gateway supports it (gateway_b). Checks in order:
 * not found, already ended, unsupported atPeriodEnd, no live gateway reference.
 */
import { ApiError } from '../../contract/errors';
import type { Subscription } from '../../db/entities/subscription';
import type { RequestContext } from '../request-context';
import { findSubscription } from './lookup';
import { applySubscriptionChange } from './transitions';

export async function cancelSubscription(context: RequestContext, id: string, atPeriodEnd: boolean): Promise<Subscription> {
  const { em, services, principal } = context;
  const subscription = await findSubscription(em, principal.environment.id, id);
  if (subscription.status === 'canceled') throw new ApiError('already_canceled', { status: subscription.status });
  const route = await services.gateways.forExisting(em, principal.environment.id, subscription.gateway);
  if (atPeriodEnd && !route.adapter.capabilities.subscriptionCancelAtPeriodEnd) {
    throw new ApiError('invalid_input', { issues: [{ path: ['atPeriodEnd'], message: `${route.gateway} only cancels immediately` }] });
  }
  if (!subscription.hasLiveGatewayRef) {
    throw new ApiError('missing_gateway_ref', {}, 'The subscription was never synchronized with its gateway (for example, its checkout was not completed).');
  }
  const snapshot = await route.adapter.cancelSubscription(subscription.gatewayRef!, { atPeriodEnd });
  return applySubscriptionChange(em, services, subscription.id, (current) => current.applyGatewaySnapshot(snapshot));
}
