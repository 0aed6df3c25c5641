/**
 * POST /v1/subscriptions/{id}/sync (decision 20): reads the subscription from
 * its gateway now and applies the answer as the gateway's present truth,
 * through the same aggregate methods, with the same events, as an inbound
 * status webhook. Background reconciliation reads subscriptions the same way
 * (`refreshSubscription`).
 *
 * A gateway_c subscription still awaiting checkout is read through its
 * checkout link: the adapter answers the subscription the link became when
 * the customer completed it, and that is applied exactly as the gateway's
 * `subscription_checkout_completed` notification is (the aggregate sees a
 * different reference; no gateway's vocabulary is spoken here).
 */
import { Refusal } from '../refusal';
import { Subscription } from './subscription';
import type { EntityManager } from '../../db/orm';
import type { GatewayAdapter, SubscriptionSnapshot } from '../../gateways';
import type { Services } from '../../services';
import { GATEWAY_CALLS, lostByTheGateway } from '../gateway-calls';
import { applyLocked } from '../locked-apply';
import { raises } from '../raises';
import type { RequestContext } from '../request-context';
import { recordLostAtGateway } from '../reconciliation/lost';
import { ROUTE_EXISTING } from '../routing/directory';
import { FIND_SUBSCRIPTION, findSubscription, storedSubscription } from './repository';

export const SYNC_SUBSCRIPTION = raises(['missing_gateway_ref'], FIND_SUBSCRIPTION, ROUTE_EXISTING, GATEWAY_CALLS.getSubscription, GATEWAY_CALLS.cancelSubscription);

export async function syncSubscription(context: RequestContext, id: string): Promise<Subscription> {
  const { em, services, principal } = context;
  const subscription = await findSubscription(em, principal.environment.id, id);
  return refreshSubscription(em, services, subscription.id);
}

/**
 * Reads the stored subscription, asks its gateway, and applies the answer
 * under the row lock. Refuses `missing_gateway_ref` while the create has not
 * been registered at the gateway (there is nothing to ask about yet), and
 * when the gateway answers that it does not know the subscription (then also
 * recorded: operators see it, and reconciliation stops asking).
 */
export async function refreshSubscription(em: EntityManager, services: Services, subscriptionId: string): Promise<Subscription> {
  const stored = await storedSubscription(em, [subscriptionId]);
  if (!stored) throw new Error(`subscription ${subscriptionId} does not exist`);
  const readRef = stored.gatewayRef;
  if (!readRef) {
    throw new Refusal('missing_gateway_ref', {}, 'The subscription has not been registered at its gateway yet; repeat the create with the same externalId.');
  }
  const route = await services.gateways.forExisting(em, stored.environment.id, stored.gateway);
  // The gateway's answer is its state somewhere during the call: dated from its start, so no webhook sent meanwhile counts as older.
  const readAt = services.now();
  let snapshot: SubscriptionSnapshot;
  try {
    snapshot = await route.adapter.getSubscription(readRef);
  } catch (error) {
    // The gateway does not know the reference: asking again will not bring it back (409 missing_gateway_ref, recorded for operators).
    if (lostByTheGateway(error)) await recordLostAtGateway(em, services, Subscription, stored);
    throw error;
  }
  if (stored.status === 'canceled' && snapshot.gatewayRef !== readRef) await cancelLateCheckout(route.adapter, services, stored, snapshot);
  return applyLocked(em, services, Subscription, stored.id, (locked) => locked.applyGatewayRead(readRef, snapshot, readAt));
}

/**
 * The customer completed a checkout whose subscription was already canceled
 * here (the link was paid in the moment it was being deactivated): whether a
 * sync found it or its notification arrived, the subscription that appeared
 * at the gateway is canceled there at once, so it never charges the
 * customer. `found` is the gateway's current view of it, so a repeat cancels
 * nothing twice.
 */
export async function cancelLateCheckout(adapter: GatewayAdapter, services: Services, subscription: Subscription, found: SubscriptionSnapshot): Promise<void> {
  if (found.status === 'canceled') return;
  services.log.warn({ subscriptionId: subscription.id, gatewayRef: found.gatewayRef }, 'checkout completed after the subscription was canceled; canceling the new gateway subscription');
  await adapter.cancelSubscription(found.gatewayRef, { atPeriodEnd: false });
}
