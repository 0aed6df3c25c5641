/**
 * Refunds move money, so they get the guarantees payment creates have
 * (decision 18): one refund and one gateway call for 50 racing creates of
 * one externalId, an externalId that belongs to one payment (decision 27:
 * 409 on another, also when they race), concurrent partial refunds that never add up to more than
 * the payment (also from two nodes on PostgreSQL), a lost answer or a
 * timeout that leaves the refund pending (never failed) until a retry or
 * the background reads find what the gateway did, and a rate limit of its
 * own. Counted at the gateway simulator, over real sockets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Refund } from '../../server/domain/refunds/refund';
import { onPostgres } from '../support/database';
import { startSandbox } from '../support/gateways';
import { call } from '../support/http';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { startTwoNodes } from '../support/service';
import { createTenant } from '../support/tenant';
import { CUSTOMER, refundApi, uniqueId } from './support';
import { readUntil } from '../support/outbox-events';

/** First background read a second after creation, then every two; short gateway timeouts so a hang ends quickly. */
const ENV = {
  RECONCILIATION_SCHEDULE: '1s,2s',
  RECONCILIATION_POLL_INTERVAL_MS: '100',
  GATEWAY_TIMEOUT_MS: '1500',
  RATE_LIMIT_PAYMENTS_CANCEL: '1000', RATE_LIMIT_DEFAULT: '100000',
  RATE_LIMIT_PAYMENTS_CREATE: '1000',
};

let world: SandboxedService;
let t: ReturnType<typeof refundApi>;

beforeAll(async () => {
  world = await startSandboxedService({ env: ENV, routes: { PIX: 'gateway_a', CARD: 'gateway_a' } });
  t = refundApi(world);
});
afterAll(() => world?.stop());

const sim = () => world.sandbox.sims.gateway_a;
const refundsMade = () => sim().stats().created.refunds;
const refundCalls = () => sim().stats().calls.createRefund ?? 0;

describe('idempotency by externalId', () => {
  it('50 concurrent creates of one refund: all 201 with the same refund, one refund and one call at the gateway', async () => {
    const payment = await t.paidPayment('gateway_a', 5000);
    const [made, calls] = [refundsMade(), refundCalls()];
    const body = { externalId: uniqueId('race'), amount: 1200 };
    const replies = await Promise.all(Array.from({ length: 50 }, () => t.refund(payment.id, body)));
    expect(replies.map((reply) => reply.status)).toEqual(Array(50).fill(201));
    expect(new Set(replies.map((reply) => reply.body.id)).size).toBe(1);
    // Exactly one answer did the work; every other one is a replay.
    expect(replies.filter((reply) => reply.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
    expect(refundsMade() - made).toBe(1);
    expect(refundCalls() - calls).toBe(1);
    expect(await world.service.services.db.fork().count(Refund, { payment: payment.id })).toBe(1);
    expect((await t.events(replies[0]!.body.id)).map((event) => event.type)).toEqual(['refund.created']);
  });

  it('a full refund repeated after it was made is replayed, not refused for having nothing left', async () => {
    const payment = await t.paidPayment('gateway_a', 1000);
    const body = { externalId: uniqueId('full') };
    const first = await t.refund(payment.id, body);
    const again = await t.refund(payment.id, { ...body, amount: 999, reason: 'another payload' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it('an externalId belongs to one payment: on another payment 409 external_id_conflict naming it, nothing made; on its own payment its refund', async () => {
    const owner = await t.paidPayment('gateway_a', 3000);
    const other = await t.paidPayment('gateway_a', 3000);
    const body = { externalId: uniqueId('owned'), amount: 500 };
    const made = await t.refund(owner.id, body);
    expect(made.status).toBe(201);
    const [refunds, calls] = [refundsMade(), refundCalls()];

    const reused = await t.refund(other.id, body);
    expect(reused.status).toBe(409);
    world.contract.expectConforms('POST', '/v1/payments/{id}/refunds', reused);
    expect(reused.body).toEqual({ error: 'external_id_conflict', message: expect.stringContaining(owner.id), paymentId: owner.id });
    expect([refundsMade(), refundCalls()]).toEqual([refunds, calls]);
    expect(await world.service.services.db.fork().count(Refund, { payment: other.id })).toBe(0);
    // Any payload: the externalId alone decides whose it is.
    expect((await t.refund(other.id, { externalId: body.externalId })).body).toMatchObject({ error: 'external_id_conflict', paymentId: owner.id });

    const again = await t.refund(owner.id, body);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // The same refund (a background read may have touched it meanwhile).
    expect(again.body).toEqual({ ...made.body, updatedAt: expect.any(String) });
  });

  it('concurrent creates of one externalId on two payments: one refund; every create on the other payment 409 naming the one that has it', async () => {
    const payments = [await t.paidPayment('gateway_a', 1000), await t.paidPayment('gateway_a', 1000)];
    const body = { externalId: uniqueId('two-payments'), amount: 100 };
    const targets = Array.from({ length: 10 }, (_, i) => payments[i % 2]!.id);
    const replies = await Promise.all(targets.map((paymentId) => t.refund(paymentId, body)));
    const won = replies.find((reply) => reply.status === 201)!.body;
    replies.forEach((reply, i) => {
      world.contract.expectConforms('POST', '/v1/payments/{id}/refunds', reply);
      if (targets[i] === won.paymentId) expect(reply.body).toMatchObject({ id: won.id, paymentId: won.paymentId, amount: 100 });
      else expect(reply.body).toEqual({ error: 'external_id_conflict', message: expect.any(String), paymentId: won.paymentId });
    });
    expect(await world.service.services.db.fork().count(Refund, { externalId: body.externalId })).toBe(1);
  });

  it('the answer was lost after the gateway made the refund: 502, the refund waits pending; the retry answers it, one refund at the gateway', async () => {
    const payment = await t.paidPayment('gateway_a', 3000);
    const made = refundsMade();
    sim().injectFault('createRefund', { kind: 'drop_response' });
    const body = { externalId: uniqueId('lost'), amount: 1000 };
    const failed = await t.refund(payment.id, body);
    expect(failed.status).toBe(502);
    world.contract.expectConforms('POST', '/v1/payments/{id}/refunds', failed);
    expect(failed.body).toEqual({ error: 'gateway_error', message: expect.any(String), provider: 'gateway_a' });
    expect(refundsMade() - made).toBe(1);
    // Not failed: the money may have gone back. Reserved meanwhile, so nothing can refund it twice.
    const stored = await t.api('GET', `/v1/refunds?externalId=${body.externalId}`);
    expect(stored.body).toMatchObject({ status: 'pending', gatewayRef: null, amount: 1000 });
    expect((await t.refund(payment.id, { externalId: uniqueId('other'), amount: 2001 })).status).toBe(400);

    const retried = await t.refund(payment.id, body);
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(retried.body).toMatchObject({ id: stored.body.id, status: 'pending', gatewayRef: expect.any(String) });
    expect(refundsMade() - made).toBe(1);
    expect((await t.events(retried.body.id)).map((event) => event.type)).toEqual(['refund.created']);
  });
});

describe('the sum rule under concurrency', () => {
  it('20 concurrent partial refunds of one payment with different externalIds never exceed its amount', async () => {
    const payment = await t.paidPayment('gateway_a', 2000);
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => t.refund(payment.id, { externalId: uniqueId(`part-${i}`), amount: 150 })));
    const created = replies.filter((reply) => reply.status === 201);
    const refused = replies.filter((reply) => reply.status !== 201);
    // 13 × 150 = 1950 fits in 2000; a 14th would not.
    expect(created).toHaveLength(13);
    expect(refused.map((reply) => reply.status)).toEqual(Array(7).fill(400));
    for (const reply of refused) expect(reply.body.issues[0].path).toEqual(['amount']);
    const stored = await world.service.services.db.fork().find(Refund, { payment: payment.id });
    expect(stored.reduce((sum, refund) => sum + refund.amount, 0)).toBe(1950);
    expect(sim().stats().created.refunds).toBeGreaterThanOrEqual(13);
  });
});

describe('a timeout leaves the refund pending; the gateway settles it later', () => {
  it('a create that timed out is completed and then settled by reconciliation, without any retry or notification', async () => {
    const payment = await t.paidPayment('gateway_a', 4000);
    const made = refundsMade();
    sim().injectFault('createRefund', { kind: 'hang' });
    const externalId = uniqueId('hang');
    const failed = await t.refund(payment.id, { externalId, amount: 2500 });
    expect(failed.status).toBe(502);
    const pending = await t.api('GET', `/v1/refunds?externalId=${externalId}`);
    expect(pending.body).toMatchObject({ status: 'pending', gatewayRef: null });
    expect((await t.events(pending.body.id)).map((event) => event.type)).toEqual([]);

    // Nobody repeats it: the first background read completes the create with its stored request (same key at the gateway).
    const registered = await readUntil(() => t.api('GET', `/v1/refunds/${pending.body.id}`), (reply) => reply.body.gatewayRef !== null);
    expect(registered.body).toMatchObject({ status: 'pending', gatewayRef: expect.any(String) });
    expect(refundsMade() - made).toBeLessThanOrEqual(1);

    // The gateway settles it, its notification lost: a later read finds it.
    sim().setWebhooksEnabled(false);
    try {
      await sim().settleRefund(registered.body.gatewayRef);
    } finally {
      sim().setWebhooksEnabled(true);
    }
    const settled = await readUntil(() => t.api('GET', `/v1/refunds/${pending.body.id}`), (reply) => reply.body.status !== 'pending');
    expect(settled.body.status).toBe('succeeded');
    expect((await t.api('GET', `/v1/payments/${payment.id}`)).body.amountRefunded).toBe(2500);
    expect((await t.events(pending.body.id)).map((event) => event.type)).toEqual(['refund.created', 'refund.succeeded']);
    const stored = await world.service.services.db.fork().findOneOrFail(Refund, { id: pending.body.id });
    expect(stored.reconcileAt).toBeNull();
    expect(stored.reconciledAt).toBeInstanceOf(Date);
  });

  it('a refund the gateway fails while its notification is lost becomes failed by a read, its amount refundable again', async () => {
    const payment = await t.paidPayment('gateway_a', 1800);
    const created = await t.refund(payment.id, { externalId: uniqueId('quiet-fail') });
    expect(created.body.status).toBe('pending');
    sim().setWebhooksEnabled(false);
    try {
      await sim().failRefund(created.body.gatewayRef, 'account closed');
    } finally {
      sim().setWebhooksEnabled(true);
    }
    const failed = await readUntil(() => t.api('GET', `/v1/refunds/${created.body.id}`), (reply) => reply.body.status !== 'pending');
    expect(failed.body).toMatchObject({ status: 'failed', failureReason: expect.any(String) });
    expect((await t.api('GET', `/v1/payments/${payment.id}`)).body.amountRefunded).toBe(0);
    expect((await t.refund(payment.id, { externalId: uniqueId('again') })).body.amount).toBe(1800);
  });
});

describe('rate limit', () => {
  it('10 refund creates per minute per key by default, in a quota of their own (cancels are not used up)', async () => {
    const tenant = await createTenant(world.service);
    const sandbox = await startSandbox(world.service, tenant.environmentId, { PIX: 'gateway_a', CARD: 'gateway_a' });
    try {
      // This key goes back to the service default of the cancel setting, which refunds share: 10 per minute.
      await world.service.admin.apiKeys.setRateLimits({ apiKeyId: tenant.apiKeyId, limits: { payments_cancel: 10 } });
      const api = (method: 'GET' | 'POST', path: string, body?: unknown) => call(world.service.url, method, path, { key: tenant.apiKey, body });
      const payment = await api('POST', '/v1/payments', { amount: 1000, method: 'pix', externalId: uniqueId('rl'), customer: CUSTOMER });
      const replies = [];
      for (let i = 0; i < 11; i++) replies.push(await api('POST', `/v1/payments/${payment.body.id}/refunds`, { externalId: uniqueId('rl-refund') }));
      expect(replies.slice(0, 10).map((reply) => reply.status)).toEqual(Array(10).fill(409));
      expect(replies[0]!.headers.get('x-ratelimit-limit')).toBe('10');
      const limited = replies[10]!;
      expect(limited.status).toBe(429);
      world.contract.expectConforms('POST', '/v1/payments/{id}/refunds', limited);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      // Cancels count in their own window.
      const card = await api('POST', '/v1/payments', { amount: 1000, method: 'card', card: { installments: 1 }, externalId: uniqueId('rl-card'), customer: CUSTOMER });
      expect((await api('POST', `/v1/payments/${card.body.id}/cancel`)).status).toBe(200);
    } finally {
      await sandbox.close();
    }
  });
});

describe.runIf(onPostgres)('two nodes on one PostgreSQL database', () => {
  it('concurrent partial refunds of one payment spread over both nodes never exceed its amount', async () => {
    const nodes = await startTwoNodes({ RATE_LIMIT_PAYMENTS_CANCEL: '1000' });
    try {
      const tenant = await createTenant(nodes.first);
      const sandbox = await startSandbox(nodes.first, tenant.environmentId, { PIX: 'gateway_a' });
      try {
        const api = (node: typeof nodes.first, method: 'GET' | 'POST', path: string, body?: unknown) => call(node.url, method, path, { key: tenant.apiKey, body });
        const created = await api(nodes.first, 'POST', '/v1/payments', { amount: 1000, method: 'pix', externalId: uniqueId('two'), customer: CUSTOMER });
        await sandbox.sims.gateway_a.payPayment(created.body.gatewayRef);
        await sandbox.sims.gateway_a.flushWebhooks();
        await readUntil(() => api(nodes.second, 'GET', `/v1/payments/${created.body.id}`), (reply) => reply.body.status === 'paid');
        const replies = await Promise.all(
          Array.from({ length: 20 }, (_, i) => api(i % 2 ? nodes.second : nodes.first, 'POST', `/v1/payments/${created.body.id}/refunds`, { externalId: uniqueId(`two-${i}`), amount: 300 })),
        );
        expect(replies.filter((reply) => reply.status === 201)).toHaveLength(3);
        expect(replies.filter((reply) => reply.status === 400)).toHaveLength(17);
        // And one externalId raced on both nodes is still one refund.
        const one = { externalId: uniqueId('two-same'), amount: 100 };
        const same = await Promise.all(Array.from({ length: 10 }, (_, i) => api(i % 2 ? nodes.second : nodes.first, 'POST', `/v1/payments/${created.body.id}/refunds`, one)));
        expect(same.map((reply) => reply.status)).toEqual(Array(10).fill(201));
        expect(new Set(same.map((reply) => reply.body.id)).size).toBe(1);
        const stored = await nodes.first.services.db.fork().find(Refund, { payment: created.body.id });
        expect(stored.reduce((sum, refund) => sum + refund.amount, 0)).toBe(1000);
      } finally {
        await sandbox.close();
      }
    } finally {
      await nodes.stop();
    }
  });
});
