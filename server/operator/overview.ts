/** The dashboard's home page of an environment: volume per day and status, the webhook deliveries still owed, and any outage now. */
import { deliveryBacklog } from '../domain/listing/delivery-backlog';
import { overviewSummary } from '../domain/listing/overview';
import { outageNow } from '../domain/routing/outage';
import { environmentAccess } from './access';
import { EnvironmentRef } from '../contract/operator/gateways';
import { OverviewInput } from '../contract/operator/listing';
import { operatorProcedure, operatorT as t } from './procedure';

export const overviewRouter = t.router({
  summary: operatorProcedure.input(OverviewInput).query(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'read');
    return overviewSummary(ctx.reads, input.environmentId, input.days, ctx.services.now());
  }),

  /** Deliveries queued (first attempt or a retry to come) and failed, capped at 10,000, and the oldest queued one's age. */
  backlog: operatorProcedure.input(EnvironmentRef).query(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'read');
    return { ...(await deliveryBacklog(ctx.reads, input.environmentId)), checkedAt: ctx.services.now().toISOString() };
  }),

  /** Gateways with their breaker open and methods failing at a gateway now: Home's banner. */
  outage: operatorProcedure.input(EnvironmentRef).query(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'read');
    return outageNow(ctx.reads, ctx.services, input.environmentId, ctx.services.now());
  }),
});
