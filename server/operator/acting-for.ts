/**
 * The dashboard's actions on a payment or subscription run the very use
 * cases of /v1 (cancel, sync) for the record's environment, as a request
 * with one of its API keys would, once the member's role allows it. Their
 * refusals reach the dashboard as the operator API's nearest codes, with the
 * API's own message (operator-answers.ts).
 */
import { Environment } from '../db/entities';
import { Payment } from '../domain/payments/payment';
import { notFound } from '../domain/refusal';
import type { RequestContext } from '../domain/request-context';
import { Subscription } from '../domain/subscriptions/subscription';
import { recordAccess, type Need } from './access';
import type { OperatorContext } from './procedure';

async function contextOf(ctx: OperatorContext, environmentId: string): Promise<RequestContext> {
  const environment = await ctx.em.findOneOrFail(Environment, { id: environmentId }, { populate: ['project', 'project.organization'] });
  return { em: ctx.em, services: ctx.services, principal: { environment, project: environment.project, organization: environment.project.organization } };
}

/** The payment's environment as a request context, once the caller may act on it as `need` says (a foreign payment is not found). */
export async function actingForPayment(ctx: OperatorContext, paymentId: string, need: Need): Promise<RequestContext> {
  const missing = notFound('Payment', paymentId);
  const payment = await ctx.em.findOne(Payment, { id: paymentId });
  if (!payment) throw missing;
  await recordAccess(ctx, payment.environment.id, need, missing);
  return contextOf(ctx, payment.environment.id);
}

export async function actingForSubscription(ctx: OperatorContext, subscriptionId: string, need: Need): Promise<RequestContext> {
  const missing = notFound('Subscription', subscriptionId);
  const subscription = await ctx.em.findOne(Subscription, { id: subscriptionId });
  if (!subscription) throw missing;
  await recordAccess(ctx, subscription.environment.id, need, missing);
  return contextOf(ctx, subscription.environment.id);
}
