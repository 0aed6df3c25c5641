import { z } from 'zod';
import { CreateSubscriptionInput, Subscription } from '../contract/schemas/subscription';
import { cancelSubscription } from '../domain/subscriptions/cancel';
import { createSubscription } from '../domain/subscriptions/create';
import { findSubscription, findSubscriptionByExternalId } from '../domain/subscriptions/lookup';
import { subscriptionBody } from '../domain/subscriptions/view';
import { authedProcedure } from '../http/procedures';

export const createSubscriptionProcedure = authedProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/v1/subscriptions',
      tags: ['subscriptions'],
      summary: 'Create a card subscription',
      description:
        'Subscriptions are card-only and routed by the SUBSCRIPTION rule (decision 3). Initial status `trialing` when `trialDays > 0`, else `active`. ' +
        'Idempotent by `externalId` per environment, like payments. On gateway_c the subscription starts as a checkout link (`gatewayRef` `pl_…`, `checkoutUrl`) and ' +
        '`subscription.created` is sent when the customer completes checkout and `gatewayRef` becomes `sub_…`; elsewhere it is sent at once.',
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
  .mutation(async ({ ctx, input }) => subscriptionBody(await createSubscription(ctx, input)));

export const getSubscriptionByExternalId = authedProcedure
  .meta({
    openapi: { method: 'GET', path: '/v1/subscriptions', tags: ['subscriptions'], summary: 'Find a subscription by externalId', description: 'Stored record only; no gateway call.', protect: true },
    errors: ['missing_query', 'unauthorized', 'not_found', 'rate_limit_exceeded', 'internal_error'],
  })
  .input(z.object({ externalId: z.string().optional().meta({ description: 'Your externalId; required.' }) }))
  .output(Subscription)
  .query(async ({ ctx, input }) => subscriptionBody(await findSubscriptionByExternalId(ctx.em, ctx.principal.environment.id, input.externalId)));

export const getSubscription = authedProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/v1/subscriptions/{id}',
      tags: ['subscriptions'],
      summary: 'Get a subscription',
      description: 'Stored record only; there is no sync for subscriptions. A malformed id is 404 `not_found` (decision 4).',
      protect: true,
    },
    errors: ['unauthorized', 'not_found', 'rate_limit_exceeded', 'internal_error'],
  })
  .input(z.object({ id: z.string() }))
  .output(Subscription)
  .query(async ({ ctx, input }) => subscriptionBody(await findSubscription(ctx.em, ctx.principal.environment.id, input.id)));

export const cancelSubscriptionProcedure = authedProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/v1/subscriptions/{id}/cancel',
      tags: ['subscriptions'],
      summary: 'Cancel a subscription',
      description:
        'Optional JSON body `{"atPeriodEnd": boolean}`; no body or an empty body means false. false cancels now (`canceled`, `canceledAt`, `subscription.canceled`). ' +
        'true (gateway_b only; elsewhere 400 `invalid_input` on `atPeriodEnd`) keeps the status until the cycle ends and sets `cancelAtPeriodEnd`; ' +
        '`subscription.canceled` is sent when the cancel takes effect. 409 `missing_gateway_ref` when the subscription was never synchronized with its gateway ' +
        '(for example a gateway_c checkout that was never completed).',
      protect: true,
    },
    errors: ['invalid_json', 'invalid_input', 'unauthorized', 'not_found', 'already_canceled', 'missing_gateway_ref', 'action_not_implemented', 'provider_not_configured', 'rate_limit_exceeded', 'internal_error', 'gateway_error'],
  })
  .input(z.object({ id: z.string(), atPeriodEnd: z.boolean().optional().meta({ description: 'Default false.' }) }))
  .output(Subscription)
  .mutation(async ({ ctx, input }) => subscriptionBody(await cancelSubscription(ctx, input.id, input.atPeriodEnd ?? false)));
