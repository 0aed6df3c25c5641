/**
 * A test payment created from the dashboard, in a sandbox environment only:
 * the same use case as `POST /v1/payments` (billing, quota, routing, one
 * registration per externalId, the same events and webhooks), acting for the
 * environment instead of through an API key. A developer's action.
 */
import { isApiError, type ApiError } from '../contract/errors';
import { Organization } from '../db/entities';
import { createPayment } from '../domain/payments/create';
import { paymentBody } from '../domain/payments/view';
import { OperatorError, type OperatorRefusal } from '../domain/operator-errors';
import { environmentAccess } from './access';
import { CreateTestPaymentInput } from './inputs/sandbox';
import { adminProcedure, adminT as t } from './procedure';

/** How a refusal of the payments API reads to the dashboard: same message, the operator API's nearest code. */
function refusalOf(error: ApiError): OperatorRefusal | null {
  if (error.status === 400 || error.status === 422) return 'invalid';
  if (error.status === 402 || error.status === 409 || error.status === 429) return 'conflict';
  if (error.status === 404) return 'not_found';
  if (error.status >= 502) return 'unavailable';
  return null;
}

function detail(error: ApiError): string {
  const issues = error.extra.issues as { path: (string | number)[]; message: string }[] | undefined;
  const first = issues?.[0];
  return first ? `${error.message} ${first.path.join('.') || 'payment'}: ${first.message}` : error.message;
}

export const sandboxRouter = t.router({
  createPayment: adminProcedure.input(CreateTestPaymentInput).mutation(async ({ ctx, input }) => {
    const environment = await environmentAccess(ctx, input.environmentId, 'develop');
    if (environment.kind !== 'sandbox') throw new OperatorError('invalid', `Environment ${environment.id} is production; test payments are created in sandbox environments only.`);
    const organization = await ctx.em.findOneOrFail(Organization, { id: environment.project.organization.id });
    try {
      const created = await createPayment({ em: ctx.em, services: ctx.services, principal: { environment, project: environment.project, organization } }, input.payment);
      return paymentBody(created.resource);
    } catch (error) {
      const refusal = isApiError(error) ? refusalOf(error) : null;
      if (refusal && isApiError(error)) throw new OperatorError(refusal, detail(error));
      throw error;
    }
  }),
});
