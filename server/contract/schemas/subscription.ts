import { z } from 'zod';
import { GATEWAY_NAMES, PAYMENT_METHODS, SUBSCRIPTION_INTERVALS, SUBSCRIPTION_STATUSES } from '../enums';
import { TEXT_LIMITS } from '../limits';
import { Amount, caseInsensitiveEnum, Currency, CustomerInput, CustomerOutput, ExternalId, MetadataInput, PathId, PublicId, ReturnUrl, Timestamp } from './common';
import { text } from './text';

export const CreateSubscriptionInput = z.strictObject({
  amount: Amount,
  currency: Currency,
  interval: caseInsensitiveEnum(SUBSCRIPTION_INTERVALS).meta({ description: '`monthly` or `yearly`; upper case accepted.' }),
  trialDays: z
    .int()
    .min(0)
    .max(365)
    .nullish()
    // Left out (or null) stays null here: the default depends on the gateway (0, or the gateway_c plan's trial).
    .transform((v) => v ?? null)
    .meta({
      description:
        "0 to 365. Default 0, except on gateway_c, where the plan fixes the trial: left out (or null) it is the plan's trial days, and any other value than the plan's is 400 `invalid_input` at `trialDays`, naming the plan's trial days. The stored subscription always says the trial the customer really gets.",
    }),
  customer: CustomerInput,
  externalId: ExternalId,
  metadata: MetadataInput.optional(),
  returnUrl: ReturnUrl.optional(),
  card: z
    .strictObject({ installments: z.int().min(1).max(24).optional() })
    .optional()
    .meta({ description: 'Accepted and ignored.' }),
  gateway: z
    .strictObject({
      gateway_c: z.strictObject({ planId: text({ min: 1, max: TEXT_LIMITS.planId }) }).optional(),
    })
    .optional()
    .meta({
      description:
        '`gateway.gateway_c.planId` is required when SUBSCRIPTION routing resolves to gateway_c, ignored otherwise. ' +
        "On gateway_c the plan fixes the price: the service reads the plan from the gateway at creation; an unknown plan is 400 `invalid_input` at `gateway.gateway_c.planId`, and an `amount` or `interval` other than the plan's is 400 `invalid_input` at that field, naming the plan's value. The stored subscription always carries what the customer is really charged.",
    }),
});

/** A subscription's id in a path: a malformed one is answered as one that does not exist (reading 4). */
export const SubscriptionPathId = PathId('sub', 'Subscription id, `sub_…`; another form is 404 `not_found`.');

/** `POST /v1/subscriptions/{id}/cancel`: the path's id and the optional body. */
export const CancelSubscriptionInput = z.strictObject({
  id: SubscriptionPathId,
  atPeriodEnd: z.boolean().optional().meta({ description: 'Default false.' }),
});

export const Subscription = z
  .object({
    id: PublicId('sub').meta({ example: 'sub_9x8c7v6b5n4m3l2k1j0h9g8f' }),
    status: z.enum(SUBSCRIPTION_STATUSES),
    method: z.enum(PAYMENT_METHODS),
    gateway: z.enum(GATEWAY_NAMES),
    amount: z.int().positive().meta({ description: 'Recurring amount in integer cents (on gateway_c, the plan\'s).' }),
    currency: z.literal('BRL'),
    interval: z.enum(SUBSCRIPTION_INTERVALS),
    trialDays: z.int().min(0).meta({ description: 'Trial days the customer really gets (on gateway_c, the plan\'s).' }),
    trialEndsAt: Timestamp.nullable(),
    nextBillingAt: Timestamp.nullable().meta({ description: 'ISO 8601 timestamp of the next expected recurring charge; null once a cancel has taken effect.' }),
    cancelAtPeriodEnd: z.boolean(),
    canceledAt: Timestamp.nullable(),
    externalId: z.string().min(1).meta({ description: 'Your idempotency identifier (always present).' }),
    gatewayRef: z.string().nullable(),
    checkoutUrl: z.string().nullable(),
    customer: CustomerOutput,
    createdAt: Timestamp,
    updatedAt: Timestamp.meta({ description: 'When the stored subscription last changed (status, dates from the gateway, a cancel).' }),
  })
  .meta({ id: 'Subscription' });
