/** The Refund resource and its create request (decision 18). */
import { z } from 'zod';
import { GATEWAY_NAMES, REFUND_STATUSES } from '../enums';
import { TEXT_LIMITS } from '../limits';
import { Amount, ExternalId, PublicId, Timestamp } from './common';
import { text } from './text';

export const CreateRefundInput = z.strictObject({
  externalId: ExternalId.meta({
    description:
      'Your idempotency identifier for this refund, unique per environment (refunds have their own externalIds, apart from payments\'): repeating it answers the refund already made, never refunding twice.',
  }),
  amount: Amount.optional().meta({
    description: 'Integer cents to give back, at most what is still refundable (the amount minus refunds pending or succeeded). Omitted: everything still refundable.',
  }),
  reason: text({ min: 1, max: TEXT_LIMITS.refundReason }).optional().meta({ description: 'Why the money goes back, for your records; sent to the gateway where it takes one.' }),
});

export const Refund = z
  .object({
    id: PublicId('ref').meta({ example: 'ref_5t6y7u8i9o0p1a2s3d4f5g6h' }),
    paymentId: PublicId('pay').meta({ description: 'The refunded payment (`pay_…`).' }),
    externalId: z.string().min(1).meta({ description: 'Your idempotency identifier for this refund.' }),
    status: z.enum(REFUND_STATUSES).meta({
      description:
        '`pending` until the gateway says the money went back (`succeeded`) or not (`failed`); both are final. A refund whose gateway call timed out stays `pending` and is settled by the gateway\'s later answer, never assumed.',
    }),
    amount: z.int().positive().meta({ description: 'Integer cents given back.' }),
    currency: z.literal('BRL'),
    reason: z.string().nullable(),
    gateway: z.enum(GATEWAY_NAMES).meta({ description: 'The payment\'s gateway, which makes the refund.' }),
    gatewayRef: z.string().nullable().meta({ description: 'The gateway\'s refund id; null until the gateway has accepted the refund, and for one it refused.' }),
    failureReason: z.string().nullable().meta({ description: '`failed`: why, as the gateway said; null otherwise.' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Refund' });
export type RefundBody = z.infer<typeof Refund>;
