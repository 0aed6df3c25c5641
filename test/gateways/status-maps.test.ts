/**
 * Every row of every status table, plus an unknown word, driven through the
 * simulator and read back through the adapter over real sockets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FINAL_PAYMENT_STATUSES,
  GATEWAY_NAMES,
  PAYMENT_STATUSES,
  SUBSCRIPTION_STATUSES,
  type GatewayName,
  type PaymentStatus,
  type SubscriptionStatus,
} from '../../server/contract/enums';
import * as tableA from '../../server/gateways/gateway_a/status-map';
import * as tableB from '../../server/gateways/gateway_b/status-map';
import * as tableC from '../../server/gateways/gateway_c/status-map';
import { mapStatus, type StatusTable } from '../../server/gateways/status-table';
import type { GatewayRefundStatus } from '../../server/gateways/adapter';
import { CUSTOMER, PATIENT_TIMEOUTS, startGateway, subscriptionInput, type GatewayUnderTest } from '../support/gateway-harness';

const TABLES: Record<GatewayName, { payment: StatusTable<PaymentStatus>; subscription: StatusTable<SubscriptionStatus> }> = {
  gateway_a: { payment: tableA.paymentStatusTable, subscription: tableA.subscriptionStatusTable },
  gateway_b: { payment: tableB.paymentStatusTable, subscription: tableB.subscriptionStatusTable },
  gateway_c: { payment: tableC.paymentStatusTable, subscription: tableC.subscriptionStatusTable },
};

/** Each gateway's refund vocabularies, and the method whose refunds speak each one. */
const REFUND_TABLES: Record<GatewayName, { method: 'pix' | 'card'; table: StatusTable<GatewayRefundStatus> }[]> = {
  gateway_a: [
    { method: 'card', table: tableA.refundStatusTable },
    { method: 'pix', table: tableA.devolucaoStatusTable },
  ],
  gateway_b: [
    { method: 'card', table: tableB.estornoStatusTable },
    { method: 'pix', table: tableB.devolucaoStatusTable },
  ],
  gateway_c: [{ method: 'card', table: tableC.refundStatusTable }],
};
const REFUND_STATUSES: readonly GatewayRefundStatus[] = ['pending', 'succeeded', 'failed'];

const UNKNOWN = 'SOMETHING_NEW_42';

const rows = <S extends string>(table: StatusTable<S>) => [
  ...Object.entries(table.entries).map(([raw, status]) => ({ raw, status: status as S, known: true })),
  { raw: UNKNOWN, status: table.fallback, known: false },
];

describe('status tables', () => {
  const all = [...Object.entries(TABLES), ['gateway_c (subscription links)', { subscription: tableC.subscriptionLinkStatusTable }] as const];

  it.each(all)('%s: targets are contract statuses and fallbacks are not final', (_name, tables) => {
    if ('payment' in tables) {
      for (const status of Object.values(tables.payment.entries)) expect(PAYMENT_STATUSES).toContain(status);
      expect(FINAL_PAYMENT_STATUSES).not.toContain(tables.payment.fallback);
    }
    for (const status of Object.values(tables.subscription.entries)) expect(SUBSCRIPTION_STATUSES).toContain(status);
    expect(tables.subscription.fallback).not.toBe('canceled');
  });

  it.each(Object.entries(REFUND_TABLES))('%s refunds: targets are refund statuses and the fallback is pending', (_name, tables) => {
    for (const { table } of tables) {
      for (const status of Object.values(table.entries)) expect(REFUND_STATUSES).toContain(status);
      expect(table.fallback).toBe('pending');
      expect(Object.values(table.entries)).toEqual(expect.arrayContaining([...REFUND_STATUSES]));
    }
  });

  it('does not treat inherited object keys as statuses', () => {
    expect(mapStatus(tableA.paymentStatusTable, 'constructor')).toEqual({ status: 'processing', known: false });
    expect(mapStatus(tableA.paymentStatusTable, '__proto__')).toEqual({ status: 'processing', known: false });
  });
});

describe.each(GATEWAY_NAMES)('%s statuses over the wire', (name) => {
  let gw: GatewayUnderTest;
  let seq = 0;

  beforeAll(async () => {
    // Reads of states, not faults: a busy machine's slow answer must not fail a row.
    gw = await startGateway(name, { timeouts: PATIENT_TIMEOUTS });
  });
  afterAll(async () => {
    await gw.close();
  });

  it.each(rows(TABLES[name].payment))('payment $raw → $status (known: $known)', async ({ raw, status, known }) => {
    const created = await gw.adapter.createPayment({ idempotencyKey: `st-${++seq}`, amount: 1000, method: 'card', customer: CUSTOMER });
    await gw.sim.setPaymentStatus(created.gatewayRef, raw);
    const snapshot = await gw.adapter.getPayment(created.gatewayRef);
    expect(snapshot).toMatchObject({ gatewayRef: created.gatewayRef, rawStatus: raw, status, statusKnown: known });
  });

  it.each(rows(TABLES[name].subscription))('subscription $raw → $status (known: $known)', async ({ raw, status, known }) => {
    const created = await gw.adapter.createSubscription(subscriptionInput(name, `sst-${++seq}`));
    // gateway_c: statuses belong to the real subscription, which exists after checkout.
    const { subscriptionRef } = await gw.sim.completeCheckout(created.gatewayRef);
    await gw.sim.setSubscriptionStatus(subscriptionRef, raw);
    const snapshot = await gw.adapter.getSubscription(subscriptionRef);
    expect(snapshot).toMatchObject({ gatewayRef: subscriptionRef, rawStatus: raw, status, statusKnown: known });
  });

  const refundRows = REFUND_TABLES[name].flatMap(({ method, table }) => rows(table).map((row) => ({ ...row, method })));
  it.each(refundRows)('$method refund $raw → $status (known: $known)', async ({ method, raw, status, known }) => {
    const payment = await gw.adapter.createPayment({ idempotencyKey: `rst-${++seq}`, amount: 1000, method, customer: CUSTOMER });
    await gw.sim.payPayment(payment.gatewayRef);
    const refund = await gw.adapter.createRefund({ idempotencyKey: `rst-${++seq}`, paymentRef: payment.gatewayRef, method, amount: 1000, paymentAmount: 1000 });
    await gw.sim.setRefundStatus(refund.gatewayRef, raw);
    const snapshot = await gw.adapter.getRefund(refund.gatewayRef, payment.gatewayRef);
    expect(snapshot).toMatchObject({ gatewayRef: refund.gatewayRef, paymentRef: payment.gatewayRef, rawStatus: raw, status, statusKnown: known });
  });
});
