/**
 * The whole payment transition table: every pair of statuses under each kind
 * of gateway report (a read of the present, an unordered report, a stale
 * webhook), what happens, and which event it records (decisions 16 and 17).
 */
import { describe, expect, it } from 'vitest';
import { PAYMENT_STATUSES, type PaymentStatus } from '../../server/contract/enums';
import { Payment } from '../../server/domain/payments/payment';
import { gatewayNotification, gatewayRead, orderOfReport, type ReportOrder } from '../../server/domain/report-order';
import type { PaymentSnapshot } from '../../server/gateways';

const FINAL: PaymentStatus[] = ['paid', 'failed', 'canceled', 'expired'];
const ORDER: Record<PaymentStatus, number> = { created: 0, pending: 1, processing: 2, paid: 3, failed: 3, canceled: 3, expired: 3 };
const SEEN = new Date('2026-11-25T12:00:00.000Z');

function paymentIn(status: PaymentStatus, method: 'pix' | 'card' = 'card'): Payment {
  const payment = new Payment();
  Object.assign(payment, {
    id: 'pay_000000000000000000000001',
    environment: { id: 'env_000000000000000000000001' },
    externalId: 'order-1',
    method,
    gateway: 'gateway_a',
    amount: 1000,
    currency: 'BRL',
    status,
    gatewayRef: 'ref_1',
    gatewaySeenAt: SEEN,
    reconcileAt: new Date(),
  });
  return payment;
}

const snapshot = (status: PaymentStatus, overrides: Partial<PaymentSnapshot> = {}): PaymentSnapshot => ({
  gatewayRef: 'ref_1',
  status,
  rawStatus: status,
  statusKnown: true,
  method: 'card',
  amount: 1000,
  checkoutUrl: null,
  pix: null,
  card: null,
  subscriptionRef: null,
  ...overrides,
});

/** Each kind of report as the aggregate receives it. */
const REPORTS: Record<ReportOrder, { reportedAt: Date | null; present: boolean }> = {
  present: { reportedAt: new Date(SEEN.getTime() + 60_000), present: true },
  unordered: { reportedAt: null, present: false },
  stale: { reportedAt: new Date(SEEN.getTime() - 60_000), present: false },
};

/** What the decisions say: money received always lands; otherwise final stays final, stale changes nothing, the present moves anywhere, the unordered only forward. */
function expectedStatus(from: PaymentStatus, to: PaymentStatus, order: ReportOrder): PaymentStatus {
  if (to === from) return from;
  if (to === 'paid') return 'paid';
  if (FINAL.includes(from) || order === 'stale') return from;
  if (order === 'present') return to;
  return ORDER[to] > ORDER[from] ? to : from;
}

const cases = (['present', 'unordered', 'stale'] as const).flatMap((order) =>
  PAYMENT_STATUSES.flatMap((from) => PAYMENT_STATUSES.map((to) => [order, from, to] as const)),
);

describe('payment transitions', () => {
  it.each(cases)('%s report: %s → reported %s', (order, from, to) => {
    const payment = paymentIn(from);
    const events = payment.applyGatewaySnapshot(snapshot(to), REPORTS[order]);
    const next = expectedStatus(from, to, order);
    expect(payment.status).toBe(next);
    const expected = next !== from && next !== 'processing' ? [`payment.${next}`] : [];
    expect(events.map((e) => e.type)).toEqual(expected);
    for (const event of events) {
      // The payload is the state at the moment of the transition.
      expect(event.data).toEqual({
        paymentId: payment.id,
        externalId: 'order-1',
        status: next,
        method: 'card',
        provider: 'gateway_a',
        amount: 1000,
        currency: 'BRL',
        gatewayRef: 'ref_1',
      });
    }
    if (next === 'paid' && from !== 'paid') expect(payment.paidAt).toBeInstanceOf(Date);
    // A final payment has nothing left to find out at its gateway.
    if (next !== from && FINAL.includes(next)) expect(payment.reconcileAt).toBeNull();
  });

  it('places a webhook by its own time against the newest report applied, at the resolution of its gateway\'s clock', () => {
    const at = (offsetMs: number, resolutionMs?: number) => gatewayNotification(new Date(SEEN.getTime() + offsetMs).toISOString(), resolutionMs);
    expect(orderOfReport(gatewayNotification(null), SEEN)).toBe('unordered');
    expect(orderOfReport(at(1), SEEN)).toBe('present');
    expect(orderOfReport(at(0), SEEN)).toBe('present');
    expect(orderOfReport(at(-1), SEEN)).toBe('stale');
    expect(orderOfReport(at(-5_000), SEEN)).toBe('stale');
    expect(orderOfReport(at(0), null)).toBe('present');
    expect(orderOfReport(gatewayRead(new Date(SEEN.getTime() - 5_000)), SEEN)).toBe('present');
    // A clock of whole seconds: the same second as the newest report applied is not older; the second before is.
    const applied = new Date(SEEN.getTime() + 700);
    expect(orderOfReport(at(0, 1_000), applied)).toBe('present');
    expect(orderOfReport(at(-1_000, 1_000), applied)).toBe('stale');
  });

  it('a newer webhook moves the newest report applied forward; a stale one does not', () => {
    const payment = paymentIn('processing');
    payment.applyGatewaySnapshot(snapshot('pending'), REPORTS.stale);
    expect(payment.gatewaySeenAt).toEqual(SEEN);
    payment.applyGatewaySnapshot(snapshot('pending'), { reportedAt: new Date(SEEN.getTime() + 5_000), present: false });
    expect(payment.status).toBe('pending');
    expect(payment.gatewaySeenAt).toEqual(new Date(SEEN.getTime() + 5_000));
  });

  it('a status missing from the gateway table never moves a payment', () => {
    const payment = paymentIn('pending');
    expect(payment.applyGatewaySnapshot(snapshot('processing', { statusKnown: false }), REPORTS.present)).toEqual([]);
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

  it('a Pix is announced pending only with its code, and its expiry is kept', () => {
    const payment = paymentIn('created', 'pix');
    expect(payment.applyGatewaySnapshot(snapshot('pending', { method: 'pix' }), REPORTS.present)).toEqual([]);
    expect(payment.status).toBe('created');
    const events = payment.applyGatewaySnapshot(
      snapshot('pending', { method: 'pix', pix: { qrCode: 'data:image/png;base64,AA==', qrCodeText: '000201' }, expiresAt: '2026-11-25T12:30:00.000Z' }),
      REPORTS.present,
    );
    expect(events.map((e) => e.type)).toEqual(['payment.pending']);
    expect(payment.expiresAt).toEqual(new Date('2026-11-25T12:30:00.000Z'));
  });
});
