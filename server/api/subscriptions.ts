import { z } from 'zod';
import { ExternalIdQuery } from '../contract/schemas/common';
import { CancelSubscriptionInput, CreateSubscriptionInput, Subscription, SubscriptionPathId } from '../contract/schemas/subscription';
import { CANCEL_SUBSCRIPTION, cancelSubscription } from '../domain/subscriptions/cancel';
import { CREATE_SUBSCRIPTION, createSubscription } from '../domain/subscriptions/create';
import { FIND_SUBSCRIPTION, FIND_SUBSCRIPTION_BY_EXTERNAL_ID, findSubscription, findSubscriptionByExternalId } from '../domain/subscriptions/repository';
import { SYNC_SUBSCRIPTION, syncSubscription } from '../domain/subscriptions/sync';
import { subscriptionBody } from '../domain/subscriptions/view';
import { authedProcedure, markReplay } from './procedures';
import { routeErrors } from './route-errors';

export const createSubscriptionProcedure = authedProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/v1/subscriptions',
      tags: ['subscriptions'],
      summary: 'Create a card subscription',
      description:
        'Subscriptions are card-only and routed by the SUBSCRIPTION rule. Initial status `trialing` when `trialDays > 0`, else `active`. ' +
        "On gateway_c the plan fixes the trial as it fixes amount and interval: `trialDays` left out (or null) is the plan's trial days, and any other value than the plan's is 400 `invalid_input` at `trialDays`, naming the plan's; the stored subscription says the trial the customer really gets. Elsewhere `trialDays` defaults to 0. " +
        'Idempotent by `externalId` per environment, like payments (a repeat answers 201 with the existing subscription and `Idempotent-Replayed: true`). On gateway_c the subscription starts as a checkout link (`gatewayRef` `pl_…`, `checkoutUrl`) and ' +
        '`subscription.created` is sent when the customer completes checkout and `gatewayRef` becomes `sub_…`; elsewhere it is sent at once. ' +
        'Never 409 `action_not_implemented`, which the contract allows here: every gateway creates card subscriptions. ' +
        'Never 409 `method_not_supported` either, although routing documents it: subscriptions are card-only and every gateway takes cards.',
      protect: true,
    },
    successStatus: 201,
    idempotentCreate: true,
    errors: routeErrors(CREATE_SUBSCRIPTION, { body: true }),
  })
  .input(CreateSubscriptionInput)
  .output(Subscription)
  .mutation(async ({ ctx, input }) => subscriptionBody(markReplay(ctx, await createSubscription(ctx, input))));

export const getSubscriptionByExternalId = authedProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/v1/subscriptions',
      tags: ['subscriptions'],
      summary: 'Find a subscription by externalId',
      description:
        'Stored record only; no gateway call. `externalId` missing or empty: 400 `missing_query`; a value that cannot be an externalId (a control character, more than 255 characters, the parameter repeated): 400 `invalid_input` at `externalId`.',
      protect: true,
    },
    errors: routeErrors(FIND_SUBSCRIPTION_BY_EXTERNAL_ID, { query: true }),
  })
  .input(ExternalIdQuery)
  .output(Subscription)
  .query(async ({ ctx, input }) => subscriptionBody(await findSubscriptionByExternalId(ctx.em, ctx.principal.environmentId, input.externalId)));

export const getSubscription = authedProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/v1/subscriptions/{id}',
      tags: ['subscriptions'],
      summary: 'Get a subscription',
      description:
        'Stored record only; never calls the gateway (`POST /v1/subscriptions/{id}/sync` asks it). A malformed id is 404 `not_found` (unlike payments, whose routes answer 400 `invalid_id`).',
      protect: true,
    },
    errors: routeErrors(FIND_SUBSCRIPTION),
  })
  .input(z.object({ id: SubscriptionPathId }))
  .output(Subscription)
  .query(async ({ ctx, input }) => subscriptionBody(await findSubscription(ctx.em, ctx.principal.environmentId, input.id)));

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
        '`subscription.canceled` is sent when the cancel takes effect. A gateway_c subscription whose customer never completed checkout (`gatewayRef` `pl_…`) is ' +
        'canceled by deactivating its checkout link, which can then no longer be paid; it has no period yet, so `atPeriodEnd: true` is 400 `invalid_input`. ' +
        'If the customer completes that checkout at the very moment of the cancel, the gateway subscription that appears is canceled at once and no ' +
        '`subscription.created` follows. 409 `missing_gateway_ref` while the create has not been registered at the gateway yet (repeat the create). ' +
        'Never 409 `action_not_implemented`, which the contract allows here: every gateway cancels subscriptions now, and where one cannot cancel at the end of the period that is 400 `invalid_input` at `atPeriodEnd`, as the contract says.',
      protect: true,
    },
    errors: routeErrors(CANCEL_SUBSCRIPTION, { body: true }),
  })
  .input(CancelSubscriptionInput)
  .output(Subscription)
  .mutation(async ({ ctx, input }) => subscriptionBody(await cancelSubscription(ctx, input.id, input.atPeriodEnd ?? false)));

/** Sync takes no body: any field sent in one is unknown, and refused. */
const SubscriptionIdNoBody = z.strictObject({ id: SubscriptionPathId });

export const syncSubscriptionProcedure = authedProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/v1/subscriptions/{id}/sync',
      tags: ['subscriptions'],
      summary: 'Refresh a subscription from its gateway',
      description:
        "No request body. Reads the subscription from its gateway now and applies the answer as the gateway's present truth, with the events an inbound notification of that change sends (`subscription.past_due`, `subscription.canceled`; a recovery to `active` sends none). " +
        'The answer moves the status in any direction among `trialing`, `active` and `past_due` (decision 17: `active` back to `trialing` sends no event, the contract having none for it); `canceled` stays final, and a cancel that has taken effect leaves `nextBillingAt` null. A gateway notification older than the newest state applied (a sync included), by the gateway\'s clock at its own resolution (whole seconds on gateway_a: the same second is not older), no longer changes the status. ' +
        'A gateway_c subscription still awaiting checkout (`gatewayRef` `pl_…`) is read through its checkout link: if the customer has completed it, the subscription is completed exactly as the gateway\'s own notification would (`gatewayRef` becomes `sub_…`, `subscription.created` with the confirmed state). ' +
        'Errors: 404 `not_found` (a malformed id too), 409 `missing_gateway_ref` when the create was never registered at the gateway (repeat the create with its externalId) or the gateway no longer knows the subscription, 409 `provider_not_configured`, 502 `gateway_error` (nothing changed). ' +
        'Rate limit: the payment sync limit (default 10 per minute per key; its setting, `payments_sync`, applies), counted in a quota of its own.',
      protect: true,
    },
    rateLimit: 'subscriptions_sync',
    errors: routeErrors(SYNC_SUBSCRIPTION, { body: true }),
  })
  .input(SubscriptionIdNoBody)
  .output(Subscription)
  .mutation(async ({ ctx, input }) => subscriptionBody(await syncSubscription(ctx, input.id)));
