/**
 * What the gateway refund tests (test/gateways/gateway-{a,b,c}-refunds) share:
 * one simulator and its adapter for the file, a webhook receiver the simulator
 * notifies, each test starting from refunds settled later, no faults and no
 * notification left over; a paid payment and a refund input made of it.
 * Call `useRefundHarness` at the top of a test file: it registers the hooks.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { GatewayName } from '../../server/contract/enums';
import type { CreateRefundInput, PaymentSnapshot } from '../../server/gateways/adapter';
import { CUSTOMER, PATIENT_TIMEOUTS, startGateway, type GatewayUnderTest } from './gateway-harness';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from './gateway-webhook-receiver';

export interface RefundHarness {
  /** The simulator and its adapter (set once the file's beforeAll ran). */
  readonly gw: GatewayUnderTest;
  readonly receiver: WebhookReceiver;
  /** A fresh idempotency key, `<keyPrefix>-<n>`. */
  key(): string;
  /** A payment created through the adapter and paid by the simulator's control. */
  paid(method: 'pix' | 'card', amount?: number): Promise<PaymentSnapshot>;
  /** The refund input for `payment` (its method; the whole amount unless given), with the file's reason. */
  refundOf(payment: PaymentSnapshot, amount?: number, idempotencyKey?: string): CreateRefundInput;
  /** The last notification the receiver got, once the simulator sent what it had queued. */
  lastNotification(): Promise<ReceivedWebhook>;
  /** The adapter's reading of that last notification. */
  lastEvents(): ReturnType<GatewayUnderTest['adapter']['parseWebhook']>;
}

export function useRefundHarness(name: GatewayName, options: { keyPrefix: string; reason: string }): RefundHarness {
  let gw: GatewayUnderTest | undefined;
  let receiver: WebhookReceiver | undefined;
  let seq = 0;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    gw = await startGateway(name, { webhookUrl: receiver.url, timeouts: PATIENT_TIMEOUTS });
  });
  afterAll(async () => {
    await gw?.close();
    await receiver?.close();
  });
  beforeEach(async () => {
    harness.gw.sim.clearFaults();
    await harness.gw.sim.setRefundSettlement('later');
    await harness.gw.sim.flushWebhooks();
    harness.receiver.received.length = 0;
  });

  const harness: RefundHarness = {
    get gw() {
      if (!gw) throw new Error('the refund harness is used before its beforeAll started the simulator');
      return gw;
    },
    get receiver() {
      if (!receiver) throw new Error('the refund harness is used before its beforeAll started the receiver');
      return receiver;
    },
    key: () => `${options.keyPrefix}-${++seq}`,
    async paid(method, amount = 10_000) {
      const payment = await harness.gw.adapter.createPayment({ idempotencyKey: harness.key(), amount, method, customer: CUSTOMER });
      await harness.gw.sim.payPayment(payment.gatewayRef);
      return payment;
    },
    refundOf: (payment, amount = payment.amount, idempotencyKey = harness.key()) => ({
      idempotencyKey,
      paymentRef: payment.gatewayRef,
      method: payment.method,
      amount,
      paymentAmount: payment.amount,
      reason: options.reason,
    }),
    async lastNotification() {
      await harness.gw.sim.flushWebhooks();
      const last = harness.receiver.received.at(-1);
      if (!last) throw new Error('no webhook received');
      return last;
    },
    lastEvents: async () => harness.gw.adapter.parseWebhook(await harness.lastNotification()),
  };
  return harness;
}
