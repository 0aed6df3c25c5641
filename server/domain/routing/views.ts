/**
 * What operators read of routing (decision 21): the dry run of a create,
 * each gateway's health, and the routing trace of one payment or
 * subscription. Never part of the public resource.
 */
import type { GatewayName, RoutingMethod } from '../../contract/enums';
import { GatewayAccount } from '../../db/entities';
import type { EntityManager } from '../../db/orm';
import type { Services } from '../../services';
import { Payment } from '../payments/payment';
import { notFound } from '../refusal';
import type { RoutingTrace } from './trace';
import { Subscription } from '../subscriptions/subscription';
import { loadEnvironment } from '../tenancy';

export async function explainRoute(em: EntityManager, services: Services, input: { environmentId: string; method: RoutingMethod; externalId?: string }) {
  await loadEnvironment(em, input.environmentId);
  return services.gateways.explain(em, input.environmentId, input.method, input.externalId);
}

/** The health of every gateway configured in the environment. */
export async function routingHealth(em: EntityManager, services: Services, environmentId: string) {
  const environment = await loadEnvironment(em, environmentId);
  const accounts = await em.find(GatewayAccount, { environment }, { orderBy: { gateway: 'asc' } });
  return services.gateways.health.view(environment.id, accounts.map((account) => account.gateway));
}

/** A resource's routing trace as operators read it; a resource created before traces were kept has only its gateway. */
export function traceView(resource: { gateway: GatewayName; routingTrace?: RoutingTrace | null }) {
  const trace = resource.routingTrace ?? null;
  return {
    gateway: resource.gateway,
    method: trace?.method ?? null,
    rule: trace?.rule ?? [],
    candidates: trace?.candidates ?? [],
    attempts: (trace?.attempts ?? []).map((attempt) => ({ ...attempt, detail: attempt.detail ?? null })),
    chosen: trace?.chosen ?? null,
    reason: trace?.reason ?? 'created before routing traces were kept',
  };
}

export async function paymentTrace(em: EntityManager, input: { environmentId: string; paymentId: string }) {
  const payment = await em.findOne(Payment, { id: input.paymentId, environment: input.environmentId });
  if (!payment) throw notFound('Payment', input.paymentId);
  return traceView(payment);
}

export async function subscriptionTrace(em: EntityManager, input: { environmentId: string; subscriptionId: string }) {
  const subscription = await em.findOne(Subscription, { id: input.subscriptionId, environment: input.environmentId });
  if (!subscription) throw notFound('Subscription', input.subscriptionId);
  return traceView(subscription);
}
