/**
 * Refunds in the operator API (dashboard, CLI): a developer (or above) gives
 * a paid payment's money back through the same use case as
 * `POST /v1/payments/{id}/refunds` (the same checks, sum rule, idempotency,
 * events and webhooks), acting for the environment instead of through an API
 * key; anyone who can read the environment lists and reads its refunds.
 */
import { randomToken } from '../contract/ids';
import { Organization } from '../db/entities';
import { createRefund } from '../domain/refunds/create';
import { listRefunds, refundDetail } from '../domain/refunds/listing';
import { Refund } from '../domain/refunds/refund';
import { notFound } from '../domain/refusal';
import { environmentAccess, recordAccess } from './access';
import { CreateRefundOperatorInput, GetRefundInput, ListRefundsInput } from '../contract/operator/refunds';
import { operatorProcedure, operatorT as t } from './procedure';

export const refundsRouter = t.router({
  create: operatorProcedure.input(CreateRefundOperatorInput).mutation(async ({ ctx, input }) => {
    const environment = await environmentAccess(ctx, input.environmentId, 'develop');
    const organization = await ctx.em.findOneOrFail(Organization, { id: environment.project.organization.id });
    const { environmentId: _environment, paymentId, ...body } = input;
    // Its refusals (the payment's status, the sum rule, the gateway) read as the API's, with the same message (operator/operator-answers.ts).
    const created = await createRefund({ em: ctx.em, services: ctx.services, principal: { environment, project: environment.project, organization } }, paymentId, {
      ...body,
      externalId: body.externalId ?? `operator-refund-${randomToken(16)}`,
    });
    return refundDetail(created.resource);
  }),

  list: operatorProcedure.input(ListRefundsInput).query(async ({ ctx, input }) => {
    await environmentAccess(ctx, input.environmentId, 'read');
    return listRefunds(ctx.reads, input);
  }),

  get: operatorProcedure.input(GetRefundInput).query(async ({ ctx, input }) => {
    const missing = notFound('Refund', input.refundId);
    const refund = await ctx.em.findOne(Refund, { id: input.refundId });
    if (!refund) throw missing;
    await recordAccess(ctx, refund.environment.id, 'read', missing);
    return refundDetail(refund);
  }),
});
