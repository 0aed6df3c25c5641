/** The whole payment transition table: every pair of statuses, what happens, and which event it records. */
import { describe, expect, it } from 'vitest';
import { PAYMENT_STATUSES, type PaymentStatus } from '../../server/contract/enums';
import { Payment } from '../../server/domain/payments/payment';
import type { PaymentSnapshot } from '../../server/gateways';

const FINAL: PaymentStatus[] = ['paid', 'failed', 'canceled', 'expired'];
const ORDER: Record<PaymentStatus, number> = { created: 0, pending: 1, processing: 2, paid: 3, failed: 3, canceled: 3, expired: 3 };

function paymentIn(status: PaymentStatus): Payment {
  const payment = new Payment();
  Object.assign(payment, {
    id: 'pay_000000000000000000000001',
    environment: { id: 'env_000000000000000000000001' },
    externalId: 'order-1',
    method: 'pix',
    gateway: 'gateway_a',
    amount: 1000,
    currency: 'BRL',
    status,
    gatewayRef: 'ref_1',
  });
  return payment;
}

const snapshot = (status: PaymentStatus, statusKnown = true): PaymentSnapshot => ({
  gatewayRef: 'ref_1',
  status,
  rawStatus: status,
  statusKnown,
  method: 'pix',
  amount: 1000,
  checkoutUrl: null,
  pix: null,
  card: null,
  subscriptionRef: null,
});

const cases = PAYMENT_STATUSES.flatMap((from) => PAYMENT_STATUSES.map((to) => [from, to] as const));

describe('payment transitions', () => {
  it.each(cases)('%s → reported %s', (from, to) => {
    const payment = paymentIn(from);
    const events = payment.applyGatewaySnapshot(snapshot(to));
    const moves = !FINAL.includes(from) && to !== from && ORDER[to] > ORDER[from];
    expect(payment.status).toBe(moves ? to : from);
    const expected = moves && to !== 'processing' ? [`payment.${to}`] : [];
    expect(events.map((e) => e.type)).toEqual(expected);
    for (const event of events) {
      // The payload is the state at the moment of the transition.
      expect(event.data).toEqual({
        paymentId: payment.id,
        externalId: 'order-1',
        status: to,
        method: 'pix',
        provider: 'gateway_a',
        amount: 1000,
        currency: 'BRL',
        gatewayRef: 'ref_1',
      });
    }
  });

  it('a status missing from the gateway table never moves a payment', () => {
    const payment = paymentIn('pending');
    expect(payment.applyGatewaySnapshot(snapshot('processing', false))).toEqual([]);
    expect(payment.status).toBe('pending');
  });

  it('registration records payment.created, then the status the gateway answered with', () => {
    const payment = paymentIn('created');
    payment.gatewayRef = null;
    const events = payment.registerAtGateway(snapshot('pending'));
    expect(events.map((e) => [e.type, e.data.status, e.data.gatewayRef])).toEqual([
      ['payment.created', 'created', 'ref_1'],
      ['payment.pending', 'pending', 'ref_1'],
    ]);
  });
});
