/**
 * The SDK's refunds against a real service with the sandbox gateway
 * simulators over real sockets (decision 18): a partial refund `pending`
 * until the gateway settles it, then the rest; `amountRefunded` on the
 * payment; the same externalId is the same refund; found by id and by
 * externalId; the typed errors (over-refund at `amount` naming what is
 * refundable, `cannot_refund_status` with the payment's status, 501 where a
 * gateway refunds only whole payments); the refund events typed by
 * `isRefundEvent` from the events feed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isInvalidInputError,
  isPaymentsApiError,
  isRefundEvent,
  PaymentsApiError,
  PaymentsClient,
  REFUND_EVENT_TYPES,
  type CreatePaymentRequest,
  type Refund,
  type RefundEvent,
  type RefundStatus,
} from '../../sdk/src/index';
import type { GatewayName } from '../../server/contract/enums';
import { readUntil } from '../support/outbox-events';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';

let world: SandboxedService;
let client: PaymentsClient;

beforeAll(async () => {
  // Pix on gateway_a (refunds any part), cards on gateway_c (refunds only whole payments).
  world = await startSandboxedService({ routes: { PIX: 'gateway_a', CARD: 'gateway_c' } });
  client = new PaymentsClient({ apiKey: world.tenant.apiKey, baseUrl: world.service.url, retryBaseDelayMs: 10 });
});
afterAll(async () => {
  await world?.stop();
});

const customer = { name: 'Maria Silva', email: 'maria@example.com', document: '123.456.789-09', phone: '11987654321' };
const uniqueId = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2)}`;

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

/** A payment made through the SDK and paid by the customer at its gateway's simulator. */
async function paidPayment(body: Partial<CreatePaymentRequest> = {}, gateway: GatewayName = 'gateway_a') {
  const created = await client.payments.create({ amount: 5000, method: 'pix', customer, externalId: uniqueId('order'), ...body });
  await world.sandbox.sims[gateway].payPayment(created.gatewayRef!);
  await world.sandbox.sims[gateway].flushWebhooks();
  const paid = await readUntil(() => client.payments.get(created.id), (payment) => payment.status === 'paid');
  expect(paid.status).toBe('paid');
  return paid;
}

/** The gateway gives the money back; the service learns it from the gateway's notification. */
async function settle(refund: Refund): Promise<Refund> {
  const sim = world.sandbox.sims[refund.gateway];
  await sim.settleRefund(refund.gatewayRef!);
  await sim.flushWebhooks();
  return readUntil(() => client.refunds.get(refund.id), (read) => read.status !== 'pending');
}

describe('refunds', () => {
  it('a partial refund is pending until the gateway settles it; then the rest; amountRefunded follows', async () => {
    const payment = await paidPayment();
    expect(payment.amountRefunded).toBe(0);

    const externalId = uniqueId('return');
    const first = await client.refunds.create(payment.id, { externalId, amount: 2000, reason: 'one item returned' });
    expect(first).toMatchObject({ paymentId: payment.id, externalId, amount: 2000, currency: 'BRL', status: 'pending', reason: 'one item returned', gateway: 'gateway_a', failureReason: null });
    expect(first.id).toMatch(/^ref_/);
    expect(first.lastResponse.status).toBe(201);
    expect(first.lastResponse.idempotentReplayed).toBe(false);
    // Pending money is not counted as given back.
    expect((await client.payments.get(payment.id)).amountRefunded).toBe(0);

    const settled = await settle(first);
    const status: RefundStatus = settled.status;
    expect(status).toBe('succeeded');
    expect(await client.payments.get(payment.id)).toMatchObject({ status: 'paid', amountRefunded: 2000 });

    // No amount: everything still refundable.
    const rest = await client.refunds.create(payment.id, { externalId: uniqueId('rest') });
    expect(rest).toMatchObject({ amount: 3000, status: 'pending' });
    await settle(rest);
    expect(await client.payments.get(payment.id)).toMatchObject({ status: 'paid', amountRefunded: 5000 });
  });

  it('the same externalId is the same refund (a retry gives nothing back twice); get and getByExternalId read it', async () => {
    const payment = await paidPayment();
    const body = { externalId: uniqueId('refund'), amount: 1500 };
    const first = await client.refunds.create(payment.id, body);
    const again = await client.refunds.create(payment.id, body);
    expect(again.id).toBe(first.id);
    expect(again.lastResponse.idempotentReplayed).toBe(true);
    expect(world.sandbox.sims.gateway_a.stats().created.refunds).toBeGreaterThan(0);

    expect(await client.refunds.get(first.id)).toEqual(first);
    expect(await client.refunds.getByExternalId(body.externalId)).toEqual(first);
    // Refunds pending count against what is refundable: 3500 is left, not 5000.
    const over = await rejection(client.refunds.create(payment.id, { externalId: uniqueId('over'), amount: 3501 }));
    expect(isInvalidInputError(over)).toBe(true);
    if (!isInvalidInputError(over)) return;
    expect(over.status).toBe(400);
    expect(over.issues).toEqual([{ path: ['amount'], message: expect.stringMatching(/3500/) }]);
  });

  it('a payment that is not paid: 409 cannot_refund_status, typed, with the status', async () => {
    const pending = await client.payments.create({ amount: 900, method: 'pix', customer, externalId: uniqueId('unpaid') });
    const error = await rejection(client.refunds.create(pending.id, { externalId: uniqueId('refund') }));
    expect(error).toBeInstanceOf(PaymentsApiError);
    expect(isPaymentsApiError(error, 'cannot_refund_status')).toBe(true);
    if (!isPaymentsApiError(error, 'cannot_refund_status')) return;
    // Narrowed: the compiler checks the code against the contract's list.
    const code: 'cannot_refund_status' = error.code;
    expect(code).toBe('cannot_refund_status');
    expect(error).toMatchObject({ status: 409, resourceStatus: 'pending', requestId: expect.any(String) });
    expect(error.response?.attempts).toBe(1); // final: never retried
  });

  it('a gateway that refunds only whole payments: a part is 501 not_implemented naming the action and the gateway', async () => {
    const card = await paidPayment({ method: 'card', card: { installments: 1 }, amount: 3000 }, 'gateway_c');
    const error = await rejection(client.refunds.create(card.id, { externalId: uniqueId('part'), amount: 1000 }));
    expect(isPaymentsApiError(error, 'not_implemented')).toBe(true);
    expect(error).toMatchObject({ status: 501, action: 'refund', provider: 'gateway_c' });
  });

  it('unknown refunds are 404 not_found; a malformed id 400 invalid_id; an unknown payment 404', async () => {
    expect(await rejection(client.refunds.get('ref_doesnotexist000000000000'))).toMatchObject({ status: 404, code: 'not_found' });
    expect(await rejection(client.refunds.getByExternalId(uniqueId('never')))).toMatchObject({ status: 404, code: 'not_found' });
    expect(await rejection(client.refunds.get('nope'))).toMatchObject({ status: 400, code: 'invalid_id' });
    expect(await rejection(client.refunds.create('pay_doesnotexist000000000000', { externalId: uniqueId('refund') }))).toMatchObject({ status: 404, code: 'not_found' });
    await expect(client.refunds.get('')).rejects.toThrow(TypeError);
  });

  it('the refund events come typed from the events feed: refund.created then refund.succeeded, with the payment id', async () => {
    const payment = await paidPayment({ amount: 1200 });
    const refund = await client.refunds.create(payment.id, { externalId: uniqueId('feed') });
    await settle(refund);
    const seen: RefundEvent[] = [];
    for (const type of REFUND_EVENT_TYPES) {
      for await (const event of client.events.iterate({ type })) if (isRefundEvent(event) && event.data.refundId === refund.id) seen.push(event);
    }
    expect(seen.map((event) => event.type).sort()).toEqual(['refund.created', 'refund.succeeded']);
    const succeeded = seen.find((event) => event.type === 'refund.succeeded')!;
    expect(succeeded.data).toMatchObject({ refundId: refund.id, paymentId: payment.id, status: 'succeeded', amount: 1200, provider: 'gateway_a', externalId: refund.externalId });
  });
});
