/** The dashboard's home page of an environment: volume per day and status, and the failed deliveries to look at. */
import { overviewSummary } from '../domain/listing/overview';
import { environmentAccess } from './access';
import { OverviewInput } from '../contract/operator/listing';
import { operatorProcedure, operatorT as t } from './procedure';

export const overviewRouter = t.router({
  summary: operatorProcedure.input(OverviewInput).query(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'read');
    return overviewSummary(ctx.reads, input.environmentId, input.days, ctx.services.now());
  }),
});
