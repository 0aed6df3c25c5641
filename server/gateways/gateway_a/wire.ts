/** gateway_a's JSON objects as PROTOCOL.md documents them; the adapter parses answers with these. */
import { z } from 'zod';

export const credentialsSchema = z.object({
  secretKey: z.string().min(8),
  webhookSecret: z.string().min(8),
});
export type GatewayACredentials = z.infer<typeof credentialsSchema>;

export const paymentSchema = z.object({
  id: z.string().min(1),
  object: z.literal('payment'),
  amount: z.number().int().positive(),
  currency: z.literal('brl'),
  method: z.enum(['pix', 'card']),
  status: z.string().min(1),
  installments: z.number().int(),
  checkout_url: z.string().nullable(),
  pix: z
    .object({
      qr_code_url: z.string(),
      copy_paste: z.string(),
      expires_at: z.number().int().nullable().default(null),
      /** The Pix's end-to-end id once paid (what a devolução names); null before. */
      end_to_end_id: z.string().nullable().default(null),
    })
    .nullable(),
  card: z.object({ brand: z.string(), last4: z.string() }).nullable(),
  subscription: z.string().nullable(),
  /** Where the hosted checkout sends the customer back; null when the create had none. */
  return_url: z.string().nullable().default(null),
  /** When it succeeded at the gateway (a Pix's settlement, a card's capture), Unix seconds; null before. */
  paid_at: z.number().int().nullable().default(null),
  created: z.number().int(),
});
export type WirePayment = z.infer<typeof paymentSchema>;

export const subscriptionSchema = z.object({
  id: z.string().min(1),
  object: z.literal('subscription'),
  status: z.string().min(1),
  amount: z.number().int().positive(),
  currency: z.literal('brl'),
  interval: z.enum(['month', 'year']),
  trial_end: z.number().int().nullable(),
  current_period_end: z.number().int().nullable(),
  cancel_at_period_end: z.boolean(),
  canceled_at: z.number().int().nullable(),
  checkout_url: z.string().nullable(),
  return_url: z.string().nullable().default(null),
  created: z.number().int(),
});
export type WireSubscription = z.infer<typeof subscriptionSchema>;

export const invoiceSchema = z.object({
  id: z.string().min(1),
  object: z.literal('invoice'),
  subscription: z.string().min(1),
  status: z.enum(['paid', 'open']),
  period_end: z.number().int().nullable(),
  payment: paymentSchema,
});
export type WireInvoice = z.infer<typeof invoiceSchema>;

/** A card refund (`re_…`). */
export const refundSchema = z.object({
  id: z.string().min(1),
  object: z.literal('refund'),
  payment: z.string().min(1),
  amount: z.number().int().positive(),
  currency: z.literal('brl'),
  status: z.string().min(1),
  reason: z.string().nullable(),
  failure_reason: z.string().nullable(),
  created: z.number().int(),
});
export type WireRefund = z.infer<typeof refundSchema>;

/** A Pix devolução, named by the paid Pix's end-to-end id and the id its client chose. */
export const devolucaoSchema = z.object({
  id: z.string().min(1),
  object: z.literal('pix_devolucao'),
  rtr_id: z.string().min(1),
  end_to_end_id: z.string().min(1),
  payment: z.string().min(1),
  amount: z.number().int().positive(),
  status: z.string().min(1),
  description: z.string().nullable(),
  failure_reason: z.string().nullable(),
  created: z.number().int(),
  settled_at: z.number().int().nullable(),
});
export type WireDevolucao = z.infer<typeof devolucaoSchema>;

export const eventSchema = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  created: z.number().int(),
  data: z.object({ object: z.unknown() }),
});

export const errorSchema = z.object({
  error: z.object({ type: z.string(), code: z.string().optional(), message: z.string(), param: z.string().optional() }),
});

export const SIGNATURE_HEADER = 'Gateway-A-Signature';
export const SIGNATURE_TOLERANCE_SECONDS = 300;
