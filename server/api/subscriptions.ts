import { ApiError } from '../contract/errors';
import { CreateSubscriptionInput, Subscription } from '../contract/schemas/subscription';
import { assertBillingActive } from '../domain/billing';
import { authedProcedure } from '../http/procedures';

export const createSubscription = authedProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/v1/subscriptions',
      tags: ['subscriptions'],
      summary: 'Create a card subscription',
      description: 'Subscriptions are card-only and routed by the SUBSCRIPTION rule (decision 3). Initial status `trialing` when `trialDays > 0`, else `active`. Idempotent by `externalId` per environment.',
      protect: true,
    },
    successStatus: 201,
    errors: [
      'invalid_json', 'invalid_input', 'unauthorized',
      'billing_inactive', 'billing_past_due', 'billing_incomplete', 'billing_canceled', 'billing_expired',
      'no_routing_rule', 'provider_not_configured', 'provider_disabled', 'method_not_supported', 'action_not_implemented',
      'rate_limit_exceeded', 'internal_error', 'gateway_error',
    ],
  })
  .input(CreateSubscriptionInput)
  .output(Subscription)
  .mutation(async ({ ctx }) => {
    assertBillingActive(ctx.principal.organization);
    const route = await ctx.services.gateways.resolve(ctx.em, ctx.principal.environment.id, 'SUBSCRIPTION');
    throw new ApiError('action_not_implemented', { action: 'create_subscription', provider: route.gateway });
  });
