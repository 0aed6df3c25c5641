/**
 * What an operator can make the sandbox do, as the internal API, the
 * dashboard and the CLI name it: outcomes a customer or a gateway brings to
 * one of our payments or subscriptions, and faults the next calls of a
 * gateway operation suffer. Here so every caller can list and check them
 * without loading the simulators (server/sandbox/).
 */
import { z } from 'zod';

export const PAYMENT_OUTCOMES = ['pay', 'decline', 'expire'] as const;
export const SUBSCRIPTION_OUTCOMES = ['complete-checkout', 'renew', 'charge-failure', 'past-due', 'end-trial'] as const;
export type PaymentOutcome = (typeof PAYMENT_OUTCOMES)[number];
export type SubscriptionOutcome = (typeof SUBSCRIPTION_OUTCOMES)[number];
/** What the gateway does with a pending refund: give the money back (`settle`) or not (`fail`). */
export const REFUND_OUTCOMES = ['settle', 'fail'] as const;
export type RefundOutcome = (typeof REFUND_OUTCOMES)[number];
/**
 * When a simulator settles the refunds it is asked for: `later` (the default, as
 * payments wait for the customer: pending until `settle`/`fail`), or `at-once`
 * (the refund call already answers it settled, and its notification follows).
 */
export const REFUND_SETTLEMENTS = ['later', 'at-once'] as const;
export type RefundSettlement = (typeof REFUND_SETTLEMENTS)[number];

export const SIM_OPERATIONS = [
  'createPayment',
  'getPayment',
  'cancelPayment',
  'getPixQrCode',
  'createSubscription',
  'getSubscription',
  'cancelSubscription',
  'getPlan',
  'createRefund',
  'getRefund',
] as const;
export type SimOperation = (typeof SIM_OPERATIONS)[number];

/** How the next calls of one operation misbehave, so tests and local runs rehearse every way a real gateway fails. */
export const faultSchema = z.discriminatedUnion('kind', [
  /** Answers normally after a delay. */
  z.object({ kind: z.literal('latency'), ms: z.number().int().min(0).max(600_000) }),
  /** Never answers; the connection stays open until the client gives up. */
  z.object({ kind: z.literal('hang') }),
  z.object({ kind: z.literal('server_error'), status: z.number().int().min(500).max(599).optional() }),
  /** A 4xx the adapter does not expect (not a validation refusal). */
  z.object({ kind: z.literal('client_error'), status: z.number().int().min(400).max(499).optional() }),
  /** The gateway's 422-style refusal naming one of its own fields. */
  z.object({ kind: z.literal('validation'), field: z.string().min(1).optional() }),
  /** A body that is not what the protocol promises: with 200 by default, or with `status` (a proxy's error page). */
  z.object({ kind: z.literal('malformed'), body: z.string().optional(), status: z.number().int().min(200).max(599).optional() }),
  /** The operation takes effect, then the connection is destroyed without an answer. */
  z.object({ kind: z.literal('drop_response') }),
  /** The operation takes effect, then its answer waits `ms` (past the caller's timeout: a timeout after the charge exists). */
  z.object({ kind: z.literal('late_response'), ms: z.number().int().min(0).max(600_000) }),
]);
export type Fault = z.infer<typeof faultSchema>;
