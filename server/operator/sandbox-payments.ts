/**
 * A test payment created from the dashboard, in a sandbox environment only:
 * the same use case as `POST /v1/payments` (billing, quota, routing, one
 * registration per externalId, the same events and webhooks), acting for the
 * environment instead of through an API key. A developer's action.
 */
import { ROUTING_METHODS, type RoutingMethod } from '../contract/enums';
import { GatewayAccount, Organization, RoutingRule } from '../db/entities';
import { createPayment } from '../domain/payments/create';
import { paymentBody } from '../domain/payments/view';
import { operatorRefusal } from '../domain/refusal';
import { simulatedGateways } from '../domain/sandbox';
import { environmentAccess } from './access';
import { CreateTestPaymentInput, SandboxReadinessInput } from '../contract/operator/sandbox';
import { operatorProcedure, operatorT as t } from './procedure';

export const sandboxRouter = t.router({
  createPayment: operatorProcedure.input(CreateTestPaymentInput).mutation(async ({ ctx, input }) => {
    const environment = await environmentAccess(ctx, input.environmentId, 'develop');
    if (environment.kind !== 'sandbox') throw operatorRefusal('invalid', `Environment ${environment.id} is production; test payments are created in sandbox environments only.`);
    const organization = await ctx.em.findOneOrFail(Organization, { id: environment.project.organization.id });
    // Its refusals (billing, quota, validation, the gateway) read to the dashboard as the API's, with the same message (operator/operator-answers.ts).
    const created = await createPayment({ em: ctx.em, services: ctx.services, principal: { environment, project: environment.project, organization } }, input.payment);
    return paymentBody(created.resource);
  }),

  /**
   * What the environment can do for a test, so the dashboard offers only
   * what works: the gateways simulators play here (none in production, nor
   * where the service runs none), and each method's readiness (a routing
   * rule whose gateway has an enabled account).
   */
  readiness: operatorProcedure.input(SandboxReadinessInput).query(async ({ ctx, input }) => {
    const environment = await environmentAccess(ctx, input.environmentId, 'read');
    const [rules, accounts] = await Promise.all([ctx.em.find(RoutingRule, { environment }), ctx.em.find(GatewayAccount, { environment })]);
    const enabled = new Set(accounts.filter((account) => account.enabled).map((account) => account.gateway));
    const ready = (method: RoutingMethod) => rules.some((rule) => rule.method === method && enabled.has(rule.gateway));
    return {
      environmentId: environment.id,
      kind: environment.kind,
      simulators: environment.kind === 'sandbox' ? simulatedGateways(ctx.services, environment.id) : [],
      methods: Object.fromEntries(ROUTING_METHODS.map((method) => [method, ready(method)])) as Record<RoutingMethod, boolean>,
    };
  }),
});
