/**
 * What background reconciliation has left to read and what the gateways lost:
 * one environment for its members (read access), the whole platform for
 * operators only.
 */
import { reconciliationStatus } from '../domain/reconciliation/status';
import { environmentAccess, requireOperator } from './access';
import { ReconciliationStatusInput } from '../contract/operator/reconciliation';
import { operatorProcedure, operatorT as t } from './procedure';

export const reconciliationRouter = t.router({
  status: operatorProcedure.input(ReconciliationStatusInput).query(async ({ ctx, input }) => {
    if (input.environmentId) await environmentAccess(ctx, input.environmentId, 'read');
    else requireOperator(ctx.actor);
    return reconciliationStatus(ctx.em, ctx.services.now(), { environmentId: input.environmentId ?? null, limit: input.limit });
  }),
});
