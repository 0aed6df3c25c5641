/** The dashboard's subscriptions of an environment: filtered, cursor-paginated list, and one with its events, deliveries and charges. */
import { Subscription } from '../domain/subscriptions/subscription';
import { listSubscriptions, subscriptionDetail } from '../domain/subscriptions/listing';
import { notFound } from '../domain/refusal';
import { environmentAccess, recordAccess } from './access';
import { SubscriptionGetInput, SubscriptionListInput } from './inputs/listing';
import { adminProcedure, adminT as t } from './procedure';
import { SubscriptionTraceInput } from './inputs/gateways';
import { subscriptionTrace } from '../domain/routing-views';

export const subscriptionsRouter = t.router({
  list: adminProcedure.input(SubscriptionListInput).query(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'read');
    return listSubscriptions(ctx.em, input);
  }),

  get: adminProcedure.input(SubscriptionGetInput).query(async ({ ctx, input }) => {
    const missing = notFound('Subscription', input.subscriptionId);
    const subscription = await ctx.em.findOne(Subscription, { id: input.subscriptionId });
    if (!subscription) throw missing;
    await recordAccess(ctx, subscription.environment.id, 'read', missing);
    return subscriptionDetail(ctx.em, subscription);
  }),

  /** How routing chose the gateway: the rule, the candidates, each attempt (decision 21). */
  trace: adminProcedure.input(SubscriptionTraceInput).query(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'read');
    return subscriptionTrace(ctx.em, input);
  }),
});
