import { z } from 'zod';
import { ExternalIdQuery, PathId } from '../contract/schemas/common';
import { CreatePaymentInput, Payment } from '../contract/schemas/payment';
import { CANCEL_PAYMENT, cancelPayment } from '../domain/payments/cancel';
import { CREATE_PAYMENT, createPayment } from '../domain/payments/create';
import { FIND_PAYMENT, FIND_PAYMENT_BY_EXTERNAL_ID, findPayment, findPaymentByExternalId } from '../domain/payments/repository';
import { SYNC_PAYMENT, syncPayment } from '../domain/payments/sync';
import { paymentBody } from '../domain/payments/view';
import { authedProcedure, markReplay } from './procedures';
import { routeErrors } from './route-errors';

const PaymentId = z.object({ id: PathId('pay', 'Payment id, `pay_…`; another form is 400 `invalid_id`.') });
/** Cancel and sync take no body: any field sent in one is unknown, and refused. */
const PaymentIdNoBody = z.strictObject(PaymentId.shape);

export const createPaymentProcedure = authedProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/v1/payments',
      tags: ['payments'],
      summary: 'Create a Pix or card payment',
      description:
        'Idempotent by `externalId` per environment: repeating a create with the same `externalId` answers 201 with the existing payment, unchanged, and creates nothing at the gateway; such an answer carries `Idempotent-Replayed: true`, and a different payload under a repeated `externalId` is logged, not applied. ' +
        'After a 502 the outcome at the gateway is unknown: repeat the same request (same `externalId`) and it completes with what the gateway actually did, never charging twice; when that repeat is the request that completed the registration at the gateway, it is not a replay (no `Idempotent-Replayed`). ' +
        'A create nobody repeats is completed in the background within minutes (the first reconciliation read). ' +
        'Emits `payment.created`; a Pix that comes back with its code is `pending` at once and also emits `payment.pending`. A Pix whose code the gateway has not handed over yet stays `created`; ' +
        '`payment.pending` is sent when the code arrives (sync or reconciliation). ' +
        'Every unfinished payment is read back from its gateway in the background (by default 1 min after creation, then 5 min, 30 min and hourly, and just after a Pix expires) until it is final, so a lost gateway notification never leaves it stuck; what a read finds is applied as a sync would, with the same events.',
      protect: true,
    },
    successStatus: 201,
    rateLimit: 'payments_create',
    idempotentCreate: true,
    errors: routeErrors(CREATE_PAYMENT, { body: true }),
  })
  .input(CreatePaymentInput)
  .output(Payment)
  .mutation(async ({ ctx, input }) => paymentBody(markReplay(ctx, await createPayment(ctx, input))));

export const getPaymentByExternalId = authedProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/v1/payments',
      tags: ['payments'],
      summary: 'Find a payment by externalId',
      description:
        'Reads the stored payment; never calls the gateway. `externalId` missing or empty: 400 `missing_query`; a value that cannot be an externalId (a control character, more than 255 characters, the parameter repeated): 400 `invalid_input` at `externalId`.',
      protect: true,
    },
    errors: routeErrors(FIND_PAYMENT_BY_EXTERNAL_ID, { query: true }),
  })
  .input(ExternalIdQuery)
  .output(Payment)
  .query(async ({ ctx, input }) => paymentBody(await findPaymentByExternalId(ctx.em, ctx.principal.environmentId, input.externalId)));

export const getPayment = authedProcedure
  .meta({
    openapi: { method: 'GET', path: '/v1/payments/{id}', tags: ['payments'], summary: 'Get a payment', description: 'Reads the stored payment; never calls the gateway.', protect: true },
    errors: routeErrors(FIND_PAYMENT),
  })
  .input(PaymentId)
  .output(Payment)
  .query(async ({ ctx, input }) => paymentBody(await findPayment(ctx.em, ctx.principal.environmentId, input.id)));

export const cancelPaymentProcedure = authedProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/v1/payments/{id}/cancel',
      tags: ['payments'],
      summary: 'Cancel an unpaid card payment',
      description: 'No request body (a body that is not JSON is 400 `invalid_json`, any field in one is 400 `invalid_input`). Checks, in order: not found → 404; method `pix` → 400 `cannot_cancel_pix`; `paid` → 409 `cannot_cancel_paid`; `canceled`, `expired`, `failed` → 409 `already_canceled` with `status`; `processing` → 409 `cannot_cancel_status` with `status`; no `gatewayRef` → 409 `missing_gateway_ref`. Cancel is not a refund: a paid payment cannot be canceled. Emits `payment.canceled`.',
      protect: true,
    },
    rateLimit: 'payments_cancel',
    errors: routeErrors(CANCEL_PAYMENT, { body: true }),
  })
  .input(PaymentIdNoBody)
  .output(Payment)
  .mutation(async ({ ctx, input }) => paymentBody(await cancelPayment(ctx, input.id)));

export const syncPaymentProcedure = authedProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/v1/payments/{id}/sync',
      tags: ['payments'],
      summary: 'Refresh a payment from its gateway',
      description:
        'No request body (a body that is not JSON is 400 `invalid_json`, any field in one is 400 `invalid_input`). Queries the gateway now and applies its answer as the gateway\'s present truth: among unfinished statuses it moves in any direction (a card the gateway moved from `processing` back to awaiting payment becomes `pending` again and can be canceled); ' +
        'a final status stays final, except that a payment the gateway reports paid after it had expired, been canceled or failed becomes `paid` (money received is never dropped; it is logged for operators as a late payment). ' +
        'Sends the event of the new status when it changed (`processing` sends none). Also recovers a Pix code that was missing after creation (then `payment.pending`). ' +
        '409 `missing_gateway_ref` when the payment was never registered at its gateway (repeat the create), and also when the gateway answers that it no longer knows it: retrying will not help, and operators see it listed. ' +
        'Inbound gateway notifications are placed by the gateway\'s own event time, at its clock\'s resolution (whole seconds on gateway_a: the same second as the sync is not older, and moves the status either way): one older than what a sync already applied changes nothing. ' +
        'Never 501 `not_implemented`, which the contract allows here: every gateway can be asked for a payment, so no adapter lacks this action.',
      protect: true,
    },
    rateLimit: 'payments_sync',
    errors: routeErrors(SYNC_PAYMENT, { body: true }),
  })
  .input(PaymentIdNoBody)
  .output(Payment)
  .mutation(async ({ ctx, input }) => paymentBody(await syncPayment(ctx, input.id)));
