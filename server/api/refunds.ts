import { z } from 'zod';
import { ExternalIdQuery, PathId } from '../contract/schemas/common';
import { CreateRefundInput, Refund } from '../contract/schemas/refund';
import { CREATE_REFUND, createRefund } from '../domain/refunds/create';
import { FIND_REFUND, FIND_REFUND_BY_EXTERNAL_ID, findRefund, findRefundByExternalId } from '../domain/refunds/repository';
import { refundBody } from '../domain/refunds/view';
import { authedProcedure, markReplay } from './procedures';
import { routeErrors } from './route-errors';

const PaymentId = PathId('pay', 'Payment id, `pay_…`; another form is 400 `invalid_id`.');
const RefundId = z.object({ id: PathId('ref', 'Refund id, `ref_…`; another form is 400 `invalid_id`.') });

export const createRefundProcedure = authedProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/v1/payments/{id}/refunds',
      tags: ['refunds'],
      summary: 'Refund a paid payment, in full or in part',
      description:
        'Gives money of a `paid` payment back through its gateway (decision 18). `amount` defaults to everything still refundable: the payment\'s amount minus its refunds `pending` or `succeeded` (failed ones give their amount back). ' +
        'Checks, in order: not found → 404; an `externalId` already used by a refund of another payment → 409 `external_id_conflict` with `paymentId`; the payment not `paid` → 409 `cannot_refund_status` with its `status`; a gateway that cannot refund → 501 `not_implemented` with `action` `refund` and `provider`; ' +
        'nothing left, or `amount` above what is refundable → 400 `invalid_input` at `amount`, naming what is refundable; a gateway that refunds only whole payments (a smaller `amount`, or after an earlier refund) → 501 `not_implemented`. ' +
        'Concurrent refunds of one payment are checked one after the other against what is left, so together they never exceed its amount. ' +
        'Idempotent by `externalId` per environment, as payment creates are: repeating it on the same payment answers 201 with the refund already made (`Idempotent-Replayed: true`) and gives nothing back twice, whatever the payload. An `externalId` belongs to one payment (decision 27): on another payment it answers 409 `external_id_conflict` with `paymentId`, the payment it belongs to, also when two creates of it race. After a 502 the outcome at the gateway is unknown: repeat the same request and it completes with what the gateway did; a refund nobody repeats is completed in the background. ' +
        'The answer is usually `pending`: the final state (`succeeded`, `failed`) comes from the gateway, by its notification or the background reads of every pending refund (1 min after creation, then 5 min, 30 min and hourly), never assumed; a gateway that refuses the refund answers it `failed` with its `failureReason`. ' +
        'Emits `refund.created`, then `refund.succeeded` or `refund.failed`; the payment stays `paid`, and its `amountRefunded` grows when a refund succeeds. ' +
        'Rate limit: 10 per minute per key by default (the payment cancel setting, `payments_cancel`, applies), counted in a quota of its own.',
      protect: true,
    },
    successStatus: 201,
    rateLimit: 'refunds_create',
    idempotentCreate: true,
    errors: routeErrors(CREATE_REFUND, { body: true }),
  })
  .input(CreateRefundInput.extend({ id: PaymentId }))
  .output(Refund)
  .mutation(async ({ ctx, input }) => {
    const { id, ...body } = input;
    return refundBody(markReplay(ctx, await createRefund(ctx, id, body)));
  });

export const getRefundByExternalId = authedProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/v1/refunds',
      tags: ['refunds'],
      summary: 'Find a refund by externalId',
      description:
        'Reads the stored refund; never calls the gateway. `externalId` missing or empty: 400 `missing_query`; a value that cannot be an externalId (a control character, more than 255 characters, the parameter repeated): 400 `invalid_input` at `externalId`.',
      protect: true,
    },
    errors: routeErrors(FIND_REFUND_BY_EXTERNAL_ID, { query: true }),
  })
  .input(ExternalIdQuery)
  .output(Refund)
  .query(async ({ ctx, input }) => refundBody(await findRefundByExternalId(ctx.em, ctx.principal.environmentId, input.externalId)));

export const getRefund = authedProcedure
  .meta({
    openapi: { method: 'GET', path: '/v1/refunds/{id}', tags: ['refunds'], summary: 'Get a refund', description: 'Reads the stored refund; never calls the gateway.', protect: true },
    errors: routeErrors(FIND_REFUND),
  })
  .input(RefundId)
  .output(Refund)
  .query(async ({ ctx, input }) => refundBody(await findRefund(ctx.em, ctx.principal.environmentId, input.id)));
