/**
 * A test payment created from the dashboard, in a sandbox environment only:
 * the same use case as `POST /v1/payments` (billing, quota, routing, one
 * registration per externalId, the same events and webhooks), acting for the
 * environment instead of through an API key. A developer's action.
 */
import { Organization } from '../db/entities';
import { createPayment } from '../domain/payments/create';
import { paymentBody } from '../domain/payments/view';
import { operatorRefusal } from '../domain/refusal';
import { environmentAccess } from './access';
import { CreateTestPaymentInput } from './inputs/sandbox';
import { adminProcedure, adminT as t } from './procedure';

export const sandboxRouter = t.router({
  createPayment: adminProcedure.input(CreateTestPaymentInput).mutation(async ({ ctx, input }) => {
    const environment = await environmentAccess(ctx, input.environmentId, 'develop');
    if (environment.kind !== 'sandbox') throw operatorRefusal('invalid', `Environment ${environment.id} is production; test payments are created in sandbox environments only.`);
    const organization = await ctx.em.findOneOrFail(Organization, { id: environment.project.organization.id });
    // Its refusals (billing, quota, validation, the gateway) read to the dashboard as the API's, with the same message (admin/operator-answers.ts).
    const created = await createPayment({ em: ctx.em, services: ctx.services, principal: { environment, project: environment.project, organization } }, input.payment);
    return paymentBody(created.resource);
  }),
});
