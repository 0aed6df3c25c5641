import { z } from 'zod';
import { CreatePaymentInput, Payment } from '../contract/schemas/payment';
import { cancelPayment } from '../domain/payments/cancel';
import { createPayment } from '../domain/payments/create';
import { findPayment, findPaymentByExternalId } from '../domain/payments/lookup';
import { syncPayment } from '../domain/payments/sync';
import { paymentBody } from '../domain/payments/view';
import { authedProcedure } from '../http/procedures';

const PaymentId = z.object({ id: z.string().meta({ description: 'Payment id, `pay_…`.' }) });
const READ_ERRORS = ['invalid_id', 'unauthorized', 'not_found', 'rate_limit_exceeded', 'internal_error'] as const;

export const createPaymentProcedure = authedProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/v1/payments',
      tags: ['payments'],
      summary: 'Create a Pix or card payment',
      description:
        'Idempotent by `externalId` per environment: repeating a create with the same `externalId` answers 201 with the existing payment, unchanged, and creates nothing at the gateway (decision 7). ' +
        'After a 502 the outcome at the gateway is unknown: repeat the same request (same `externalId`) and it completes with what the gateway actually did, never charging twice. ' +
        'Emits `payment.created`; a Pix that comes back with its code is `pending` at once and also emits `payment.pending`.',
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
  .mutation(async ({ ctx, input }) => paymentBody(await createPayment(ctx, input)));

export const getPaymentByExternalId = authedProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/v1/payments',
      tags: ['payments'],
      summary: 'Find a payment by externalId',
      description: 'Reads the stored payment; never calls the gateway.',
      protect: true,
    },
    errors: ['missing_query', 'unauthorized', 'not_found', 'rate_limit_exceeded', 'internal_error'],
  })
  .input(z.object({ externalId: z.string().optional().meta({ description: 'Your externalId; required.' }) }))
  .output(Payment)
  .query(async ({ ctx, input }) => paymentBody(await findPaymentByExternalId(ctx.em, ctx.principal.environment.id, input.externalId)));

export const getPayment = authedProcedure
  .meta({
    openapi: { method: 'GET', path: '/v1/payments/{id}', tags: ['payments'], summary: 'Get a payment', description: 'Reads the stored payment; never calls the gateway.', protect: true },
    errors: READ_ERRORS,
  })
  .input(PaymentId)
  .output(Payment)
  .query(async ({ ctx, input }) => paymentBody(await findPayment(ctx.em, ctx.principal.environment.id, input.id)));

export const cancelPaymentProcedure = authedProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/v1/payments/{id}/cancel',
      tags: ['payments'],
      summary: 'Cancel an unpaid card payment',
      description: 'No request body. Checks in the order of decision 2. Cancel is not a refund: a paid payment cannot be canceled. Emits `payment.canceled`.',
      protect: true,
    },
    rateLimit: 'payments_cancel',
    errors: [
      'invalid_id', 'cannot_cancel_pix', 'unauthorized', 'not_found',
      'cannot_cancel_paid', 'already_canceled', 'cannot_cancel_status', 'missing_gateway_ref', 'provider_not_configured',
      'rate_limit_exceeded', 'internal_error', 'not_implemented', 'gateway_error',
    ],
  })
  .input(PaymentId)
  .output(Payment)
  .mutation(async ({ ctx, input }) => paymentBody(await cancelPayment(ctx, input.id)));

export const syncPaymentProcedure = authedProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/v1/payments/{id}/sync',
      tags: ['payments'],
      summary: 'Refresh a payment from its gateway',
      description: 'No request body. Queries the gateway now, updates the stored status and sends the event if the status changed (`processing` sends none). Also recovers a Pix code that was missing after creation.',
      protect: true,
    },
    rateLimit: 'payments_sync',
    errors: ['invalid_id', 'unauthorized', 'not_found', 'missing_gateway_ref', 'provider_not_configured', 'rate_limit_exceeded', 'internal_error', 'not_implemented', 'gateway_error'],
  })
  .input(PaymentId)
  .output(Payment)
  .mutation(async ({ ctx, input }) => paymentBody(await syncPayment(ctx, input.id)));
