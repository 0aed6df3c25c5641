/** The dashboard's subscriptions of an environment: filtered, cursor-paginated list, and one with its events, deliveries and charges. */
import { Subscription } from '../domain/subscriptions/subscription';
import { listSubscriptions, subscriptionDetail } from '../domain/subscriptions/listing';
import { notFound } from '../domain/refusal';
import { environmentAccess, recordAccess } from './access';
import { SubscriptionGetInput, SubscriptionListInput } from '../contract/operator/listing';
import { operatorProcedure, operatorT as t } from './procedure';
import { SubscriptionActionInput, SubscriptionCancelInput } from '../contract/operator/actions';
import { actingForSubscription } from './acting-for';
import { cancelSubscription } from '../domain/subscriptions/cancel';
import { syncSubscription } from '../domain/subscriptions/sync';
import { subscriptionBody } from '../domain/subscriptions/view';
import { subscriptionActionOptions } from '../domain/action-options';
import { SubscriptionTraceInput } from '../contract/operator/gateways';
import { subscriptionTrace } from '../domain/routing/views';

export const subscriptionsRouter = t.router({
  list: operatorProcedure.input(SubscriptionListInput).query(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'read');
    return listSubscriptions(ctx.reads, input);
  }),

  get: operatorProcedure.input(SubscriptionGetInput).query(async ({ ctx, input }) => {
    const missing = notFound('Subscription', input.subscriptionId);
    const subscription = await ctx.em.findOne(Subscription, { id: input.subscriptionId });
    if (!subscription) throw missing;
    await recordAccess(ctx, subscription.environment.id, 'read', missing);
    return subscriptionDetail(ctx.em, subscription);
  }),

  /** What cancel (now, at period end) and sync would do with this subscription now, and why not (the dashboard's buttons). */
  actions: operatorProcedure.input(SubscriptionActionInput).query(async ({ ctx, input }) => {
    const missing = notFound('Subscription', input.subscriptionId);
    const subscription = await ctx.em.findOne(Subscription, { id: input.subscriptionId });
    if (!subscription) throw missing;
    await recordAccess(ctx, subscription.environment.id, 'read', missing);
    return subscriptionActionOptions(subscription);
  }),

  /** POST /v1/subscriptions/{id}/cancel for a developer: now, or at the end of the period where the gateway supports it; the same refusals. */
  cancel: operatorProcedure.input(SubscriptionCancelInput).mutation(async ({ ctx, input }) => {
    const context = await actingForSubscription(ctx, input.subscriptionId, 'develop');
    return subscriptionBody(await cancelSubscription(context, input.subscriptionId, input.atPeriodEnd));
  }),

  /** POST /v1/subscriptions/{id}/sync for a developer: reads the subscription from its gateway now. */
  sync: operatorProcedure.input(SubscriptionActionInput).mutation(async ({ ctx, input }) => {
    const context = await actingForSubscription(ctx, input.subscriptionId, 'develop');
    return subscriptionBody(await syncSubscription(context, input.subscriptionId));
  }),

  /** How routing chose the gateway: the rule, the candidates, each attempt (decision 21). */
  trace: operatorProcedure.input(SubscriptionTraceInput).query(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'read');
    return subscriptionTrace(ctx.em, input);
  }),
});
