import { z } from 'zod';
import { GATEWAY_NAMES, PAYMENT_METHODS, PAYMENT_STATUSES } from '../enums';
import { Amount, caseInsensitiveEnum, Currency, CustomerInput, CustomerOutput, ExternalId, MetadataInput, PublicId, ReturnUrl, Timestamp } from './common';

export const CreatePaymentInput = z
  .strictObject({
    amount: Amount,
    currency: Currency,
    method: caseInsensitiveEnum(PAYMENT_METHODS).meta({ description: '`pix` or `card`; upper case accepted, answered lower case.' }),
    customer: CustomerInput,
    externalId: ExternalId,
    metadata: MetadataInput.optional(),
    returnUrl: ReturnUrl.optional(),
    card: z
      .strictObject({
        installments: z.int().min(1).max(24).default(1).meta({ description: '1 to 24; gateway_a allows 1 to 12.' }),
      })
      .optional()
      .meta({ description: 'Card options; rejected when method is pix.' }),
  })
  .superRefine((input, ctx) => {
    if (input.method === 'pix' && input.card !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['card'], message: 'is not allowed when method is pix' });
    }
  });

export const Payment = z
  .object({
    id: PublicId('pay').meta({ example: 'pay_3k2j4h5g6f7d8s9a0q1w2e3r' }),
    status: z.enum(PAYMENT_STATUSES),
    method: z.enum(PAYMENT_METHODS),
    gateway: z.enum(GATEWAY_NAMES),
    amount: z
      .int()
      .min(0)
      .meta({
        description:
          'Integer cents. A payment you create is at least 1; a recurring charge of a subscription carries the amount its gateway reports charging, never negative.',
      }),
    currency: z.literal('BRL'),
    externalId: z.string().min(1).meta({
      description: 'Your idempotency identifier (always present); a recurring charge the gateway created has `<subscription id>:<gateway reference>`.',
    }),
    gatewayRef: z.string().nullable(),
    customer: CustomerOutput,
    checkoutUrl: z.string().nullable(),
    pix: z
      .object({ qrCode: z.string(), qrCodeText: z.string() })
      .nullable()
      .meta({ description: 'Pix: the code, once the gateway has handed it over (both parts together); null for card and until then.' }),
    card: z.object({ brand: z.string(), last4: z.string() }).nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp.meta({ description: 'When the stored payment last changed (status, details from the gateway).' }),
    paidAt: Timestamp.nullable().meta({ description: 'When the payment was made, as its gateway reports it (a Pix settlement, a card capture); the moment the service learned it was paid where the gateway gives no time; null until paid.' }),
    expiresAt: Timestamp.nullable().meta({
      description: 'Pix: when the code stops being payable, as the gateway states it; null for card and until the gateway hands the code over.',
    }),
    subscriptionId: PublicId('sub')
      .nullable()
      .meta({ description: 'The subscription (`sub_…`) a recurring charge belongs to; null for one-off payments.' }),
    amountRefunded: z.int().min(0).meta({
      description: 'Integer cents given back by refunds that succeeded (decision 18); 0 when none has. A refunded payment stays `paid`; refunds still pending are not counted.',
    }),
  })
  .meta({ id: 'Payment' });
export type PaymentBody = z.infer<typeof Payment>;
