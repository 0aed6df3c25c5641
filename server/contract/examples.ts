/**
 * Examples shown in the OpenAPI document: one or more per request body, one
 * per success response, and one per error code. They are written by hand
 * against the contract's Zod schemas and checked against the document's own
 * schemas by a test, so an example that drifts from its schema fails there.
 */
import { ERROR_CATALOGUE, type ErrorCode } from './errors';

export interface NamedExample {
  summary: string;
  value: unknown;
}

const customer = { name: 'Maria Silva', email: 'maria@example.com', document: '123.456.789-09' };
const customerOut = { name: 'Maria Silva', email: 'maria@example.com', documentLast4: '8909' };

/** Request body examples by the body's component name. */
export const REQUEST_EXAMPLES: Record<string, Record<string, NamedExample>> = {
  CreatePaymentRequest: {
    pix: {
      summary: 'A Pix payment',
      value: { amount: 1990, method: 'pix', externalId: 'order-1', customer, metadata: { cartId: 'c_81', items: 3 } },
    },
    card: {
      summary: 'A card payment in 3 installments (gateway-hosted checkout)',
      value: { amount: 5000, currency: 'BRL', method: 'card', card: { installments: 3 }, externalId: 'order-2', customer: { ...customer, document: '12345678909' } },
    },
  },
  CreateSubscriptionRequest: {
    monthly: {
      summary: 'A monthly subscription routed to gateway_c',
      value: {
        amount: 2990,
        interval: 'monthly',
        externalId: 'plan-1',
        gateway: { gateway_c: { planId: 'plan_monthly_basic' } },
        customer: { ...customer, document: '12345678909', phone: '11987654321' },
      },
    },
    trial: {
      summary: 'A yearly subscription with a 14-day trial',
      value: { amount: 29900, interval: 'yearly', trialDays: 14, externalId: 'plan-2', customer, metadata: { tier: 'pro' } },
    },
  },
  CreateRefundRequest: {
    full: { summary: 'Refund everything still refundable', value: { externalId: 'refund-order-1' } },
    partial: { summary: 'Refund part of the payment, with a reason', value: { externalId: 'refund-order-1-item-2', amount: 500, reason: 'one item returned' } },
  },
  CancelSubscriptionRequest: {
    now: { summary: 'Cancel now (same as no body)', value: { atPeriodEnd: false } },
    periodEnd: { summary: 'Cancel when the current cycle ends (gateway_b only)', value: { atPeriodEnd: true } },
  },
};

const payment = {
  id: 'pay_3k2j4h5g6f7d8s9a0q1w2e3r',
  status: 'pending',
  method: 'pix',
  gateway: 'gateway_b',
  amount: 1990,
  currency: 'BRL',
  externalId: 'order-1',
  gatewayRef: 'gb_7f3a9c1e5d2b',
  customer: customerOut,
  checkoutUrl: null,
  pix: { qrCode: 'iVBORw0KGgoAAAANSUhEUgAA…', qrCodeText: '00020126580014br.gov.bcb.pix0136…6304ABCD' },
  card: null,
  createdAt: '2026-11-22T12:00:00.000Z',
  updatedAt: '2026-11-22T12:00:00.000Z',
  paidAt: null,
  expiresAt: '2026-11-22T12:30:00.000Z',
  subscriptionId: null,
  amountRefunded: 0,
};

const subscription = {
  id: 'sub_9x8c7v6b5n4m3l2k1j0h9g8f',
  status: 'active',
  method: 'card',
  gateway: 'gateway_c',
  amount: 2990,
  currency: 'BRL',
  interval: 'monthly',
  trialDays: 0,
  trialEndsAt: null,
  nextBillingAt: '2026-12-22T12:00:00.000Z',
  cancelAtPeriodEnd: false,
  canceledAt: null,
  externalId: 'plan-1',
  gatewayRef: 'pl_4d5e6f7a8b9c',
  checkoutUrl: 'https://checkout.gateway-c.example/pl_4d5e6f7a8b9c',
  customer: customerOut,
  createdAt: '2026-11-22T12:00:00.000Z',
  updatedAt: '2026-11-22T12:00:00.000Z',
};

/** Success response examples by the response schema's component name. */
export const RESPONSE_EXAMPLES: Record<string, NamedExample> = {
  Health: { summary: 'The service is up', value: { ok: true, service: 'service-payments' } },
  AuthTest: {
    summary: 'A sandbox key',
    value: {
      ok: true,
      organization: { id: 'org_1a2b3c4d5e6f7g8h9i0j1k2l' },
      project: { id: 'prj_1a2b3c4d5e6f7g8h9i0j1k2l' },
      environment: { id: 'env_1a2b3c4d5e6f7g8h9i0j1k2l', kind: 'sandbox' },
      apiKey: { id: 'key_1a2b3c4d5e6f7g8h9i0j1k2l' },
    },
  },
  Payment: { summary: 'A Pix waiting to be paid', value: payment },
  Subscription: { summary: 'An active monthly subscription', value: subscription },
  Refund: {
    summary: 'A partial refund waiting for its gateway',
    value: {
      id: 'ref_5t6y7u8i9o0p1a2s3d4f5g6h',
      paymentId: payment.id,
      externalId: 'refund-order-1-item-2',
      status: 'pending',
      amount: 500,
      currency: 'BRL',
      reason: 'one item returned',
      gateway: 'gateway_b',
      gatewayRef: 'D7f3a9c1e5d2b4a6c8e0f1a2b3c4d5e6',
      failureReason: null,
      createdAt: '2026-11-25T12:00:00.000Z',
      updatedAt: '2026-11-25T12:00:00.000Z',
    },
  },
  EventPage: {
    summary: 'The first page after `evt_0a1b2c3d4e5f6g7h8i9j0k1l`, two events, more to read',
    value: {
      data: [
        {
          id: 'evt_1b2c3d4e5f6g7h8i9j0k1l2m',
          type: 'payment.created',
          createdAt: '2026-11-25T12:00:00.000Z',
          data: { paymentId: payment.id, externalId: 'order-1', status: 'created', method: 'pix', provider: 'gateway_b', amount: 1990, currency: 'BRL', gatewayRef: null },
        },
        {
          id: 'evt_2c3d4e5f6g7h8i9j0k1l2m3n',
          type: 'payment.pending',
          createdAt: '2026-11-25T12:00:01.000Z',
          data: { paymentId: payment.id, externalId: 'order-1', status: 'pending', method: 'pix', provider: 'gateway_b', amount: 1990, currency: 'BRL', gatewayRef: 'gb_7f3a9c1e5d2b' },
        },
      ],
      hasMore: true,
      nextCursor: 'evt_2c3d4e5f6g7h8i9j0k1l2m3n',
    },
  },
};

/** The extra fields an example of each code carries (ERROR_CATALOGUE names which ones). */
const ERROR_EXTRAS: Partial<Record<ErrorCode, Record<string, unknown>>> = {
  invalid_input: { issues: [{ path: ['customer', 'document'], message: 'must contain 11 digits (CPF) or 14 digits (CNPJ)' }] },
  billing_monthly_tx_limit_reached: { limit: 1000, used: 1000 },
  already_canceled: { status: 'canceled' },
  cannot_cancel_status: { status: 'processing' },
  cannot_refund_status: { status: 'pending' },
  external_id_conflict: { paymentId: 'pay_3k2j4h5g6f7d8s9a0q1w2e3r' },
  provider_not_configured: { provider: 'gateway_a' },
  provider_disabled: { provider: 'gateway_a' },
  method_not_supported: { provider: 'gateway_c', method: 'pix' },
  action_not_implemented: { action: 'cancel', provider: 'gateway_b' },
  not_implemented: { action: 'cancel', provider: 'gateway_b' },
  gateway_error: { provider: 'gateway_a' },
};

/** The body the service answers with for `code`: the catalogue's message and the code's extra fields. */
export function errorExample(code: ErrorCode): NamedExample {
  return { summary: code, value: { error: code, message: ERROR_CATALOGUE[code].message, ...ERROR_EXTRAS[code] } };
}
