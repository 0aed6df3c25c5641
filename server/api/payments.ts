import { CreatePaymentInput, Payment } from '../contract/schemas/payment';
import { assertBillingActive, assertTransactionQuota } from '../domain/billing';
import { resolveRoute } from '../domain/routing';
import { authedProcedure } from '../http/procedures';

export const createPayment = authedProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/v1/payments',
      tags: ['payments'],
      summary: 'Create a Pix or card payment',
      description: 'Idempotent by `externalId` per environment: repeating a create with the same `externalId` answers 201 with the existing payment, unchanged, and calls no gateway (decision 7).',
      protect: true,
    },
    successStatus: 201,
    rateLimit: 'payments_create',
    errors: [
      'invalid_json', 'invalid_input', 'unauthorized',
      'billing_inactive', 'billing_past_due', 'billing_incomplete', 'billing_canceled', 'billing_expired', 'billing_monthly_tx_limit_reached',
      'no_routing_rule', 'provider_not_configured', 'provider_disabled', 'method_not_supported',
      'rate_limit_exceeded', 'internal_error', 'gateway_error',
    ],
  })
  .input(CreatePaymentInput)
  .output(Payment)
  .mutation(async ({ ctx, input }) => {
    const { organization, environment } = ctx.principal;
    assertBillingActive(organization);
    await assertTransactionQuota(ctx.em, organization, ctx.services.now());
    return resolveRoute(environment, input.method === 'pix' ? 'PIX' : 'CARD');
  });
