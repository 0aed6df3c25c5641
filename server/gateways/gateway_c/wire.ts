/** gateway_c's JSON objects as PROTOCOL.md documents them; the adapter parses answers with these. */
import { z } from 'zod';

export const credentialsSchema = z.object({
  apiKey: z.string().min(8),
  apiSecret: z.string().min(8),
  webhookSecret: z.string().min(8),
});
export type GatewayCCredentials = z.infer<typeof credentialsSchema>;

const card = z.object({ brand: z.string(), last_four: z.string() }).nullable();

export const planSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  amount_cents: z.number().int().positive(),
  interval: z.enum(['monthly', 'yearly']),
  trial_days: z.number().int().min(0),
});
export type WirePlan = z.infer<typeof planSchema>;

export const chargeSchema = z.object({
  id: z.string().min(1),
  status: z.string().min(1),
  amount_cents: z.number().int().positive(),
  subscription_id: z.string().nullable(),
  card,
  /** When the charge was paid at the gateway, ISO; null before (and for a failed one). */
  paid_at: z.string().nullable().default(null),
  created_at: z.string(),
});
export type WireCharge = z.infer<typeof chargeSchema>;

export const checkoutLinkSchema = z.object({
  id: z.string().min(1),
  type: z.enum(['single', 'subscription']),
  status: z.string().min(1),
  url: z.string(),
  amount_cents: z.number().int().positive(),
  installments: z.number().int().nullable(),
  plan: planSchema.nullable(),
  /** The charge made when a single link is paid. */
  charge: chargeSchema.nullable(),
  /** Set once a subscription link's checkout is completed. */
  subscription_id: z.string().nullable(),
  /** Where the hosted page sends the customer back; null when the create had none. */
  redirect_url: z.string().nullable().default(null),
  created_at: z.string(),
  expires_at: z.string(),
});
export type WireCheckoutLink = z.infer<typeof checkoutLinkSchema>;

export const subscriptionSchema = z.object({
  id: z.string().min(1),
  status: z.string().min(1),
  plan_id: z.string(),
  checkout_link_id: z.string(),
  current_period_end: z.string().nullable(),
  trial_ends_at: z.string().nullable(),
  canceled_at: z.string().nullable(),
  created_at: z.string(),
});
export type WireSubscription = z.infer<typeof subscriptionSchema>;

/** A refund (`rf_…`) of one charge, always of its whole amount. */
export const refundSchema = z.object({
  id: z.string().min(1),
  charge_id: z.string().min(1),
  /** The single checkout link the charge paid; null for a subscription cycle's charge. */
  checkout_link_id: z.string().nullable(),
  amount_cents: z.number().int().positive(),
  status: z.string().min(1),
  reason: z.string().nullable(),
  failure_reason: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type WireRefund = z.infer<typeof refundSchema>;

export const webhookSchema = z.object({
  id: z.string().min(1),
  event: z.string().min(1),
  occurred_at: z.string(),
  data: z.record(z.string(), z.unknown()),
});

export const checkoutLinkEventData = z.object({ checkout_link: checkoutLinkSchema });
export const subscriptionCreatedData = z.object({ checkout_link_id: z.string().min(1), subscription: subscriptionSchema });
export const subscriptionEventData = z.object({ subscription: subscriptionSchema });
export const chargeEventData = z.object({ charge: chargeSchema, subscription: subscriptionSchema });
export const refundEventData = z.object({ refund: refundSchema });

export const errorSchema = z.object({
  code: z.string(),
  message: z.string(),
  errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
});

export const SIGNATURE_HEADER = 'X-Signature-SHA256';
