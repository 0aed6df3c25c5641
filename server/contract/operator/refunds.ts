/** Inputs of the refund procedures. Browser-safe (zod and the contract only), so the dashboard validates its refund form with them. */
import { z } from 'zod';
import { CreateRefundInput } from '../schemas/refund';
import { RecordId } from '../schemas/text';
import { page } from './listing';

/**
 * A refund made by a person (dashboard, CLI): the public create's fields for
 * one payment of an environment. Without `externalId` one is made for this
 * request; a client that may repeat the request (a double click, a lost
 * answer) should send its own, so the repeat is the same refund.
 */
export const CreateRefundOperatorInput = z.strictObject({
  environmentId: RecordId,
  paymentId: RecordId,
  ...CreateRefundInput.shape,
  externalId: CreateRefundInput.shape.externalId.optional(),
});

export const ListRefundsInput = z.strictObject({
  environmentId: RecordId,
  /** Only this payment's refunds. */
  paymentId: RecordId.optional(),
  /** A page at a time, newest first (keyset cursor, as the payments list). */
  ...page,
});

export const GetRefundInput = z.strictObject({ refundId: RecordId });
