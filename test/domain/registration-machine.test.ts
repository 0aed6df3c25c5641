/**
 * The registration machine (domain/registration/) on the real database,
 * without the service: the same four paths for a payment and for a refund,
 * the refund plugged in with its own rule (refunds/registration.ts). The
 * gateway is an in-process adapter the test answers, holds open or fails.
 *
 * - a fresh create registers the row and commits its events once;
 * - a concurrent repeat waits for the holder and answers what it registered;
 * - a lease that lapsed (its holder died mid-call) is taken over, the gateway
 *   asked again with the same idempotency key, and the holder's late answer
 *   registers nothing twice;
 * - an unavailable gateway releases the lease and keeps the row, so a retry
 *   completes it at once.
 *
 * Then what a refund's rule changes: a refusal leaves it failed, a gateway
 * that cannot make it removes it, and reconciliation finishes one nobody
 * repeated through the same take-over.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxEvent } from '../../server/db/entities';
import { Payment } from '../../server/domain/payments/payment';
import { paymentRegistration } from '../../server/domain/payments/create';
import { Refund } from '../../server/domain/refunds/refund';
import { createRefund } from '../../server/domain/refunds/create';
import { RECONCILED_REFUNDS } from '../../server/domain/refunds/reconcile';
import { answerWinner, insertWithLease, replayExisting, type Created } from '../../server/domain/registration/create-once';
import { gatewayIdempotencyKey, requestFingerprint } from '../../server/domain/registration/idempotency';
import type { RequestContext } from '../../server/domain/request-context';
import { registerRouted } from '../../server/domain/routing/fallback';
import type { CreatePaymentInput, PaymentSnapshot, RefundSnapshot } from '../../server/gateways';
import { GatewayFailure } from '../../server/gateways/errors';
import { eventually } from '../support/outbox-events';
import { heldCall, openMachine, type Machine } from '../support/registration-machine';

let machine: Machine;
let counter = 0;

beforeAll(async () => {
  machine = await openMachine();
});
afterAll(() => machine?.close());

/** One kind of resource as the machine registers it: its create (the first request and any repeat), its gateway's answer. */
interface Kind {
  name: string;
  /** A create of this externalId; the same call made again is the repeat. */
  create(context: RequestContext, externalId: string): Promise<Created<Payment | Refund>>;
  answer(): PaymentSnapshot | RefundSnapshot;
  reload(id: string): Promise<Payment | Refund | null>;
  createdEvent: string;
}

const PAYMENT_AMOUNT = 1990;

/** A payment's create, as payments/create.ts runs it past its checks: replay, insert with the lease, the routing loop with one gateway. */
const payments: Kind = {
  name: 'a payment',
  async create(context, externalId) {
    const steps = paymentRegistration(machine.organizationId);
    const request: CreatePaymentInput = {
      idempotencyKey: gatewayIdempotencyKey('payment', machine.environmentId, externalId),
      amount: PAYMENT_AMOUNT,
      method: 'pix',
      customer: { name: 'Ana', email: 'ana@example.com', document: '00000000191', phone: null },
    } as CreatePaymentInput;
    const create = { externalId, fingerprint: requestFingerprint(request) };
    const replayed = await replayExisting(context, steps, create);
    if (replayed) return replayed;
    const payment = context.em.create(
      Payment,
      { environment: machine.environmentId, externalId, method: 'pix', gateway: 'gateway_a', amount: PAYMENT_AMOUNT, requestHash: create.fingerprint, createdAt: new Date() },
      { persist: false },
    );
    payment.routingTrace = { method: 'PIX', rule: [{ gateway: 'gateway_a', weight: null }], candidates: [], attempts: [], chosen: null, reason: 'the rule names gateway_a' };
    if (!(await insertWithLease(context, Payment, payment, request))) return answerWinner(context, steps, create);
    const none = { immediate: () => 'nothing_found' as const, settle: async () => ({ fate: 'nothing_found' as const }) };
    return { resource: await registerRouted(context, steps, payment, [{ route: machine.route, request }], payment.routingTrace, none), replayed: false };
  },
  answer: () => ({
    gatewayRef: `pi_${++counter}`,
    status: 'pending',
    rawStatus: 'ACTIVE',
    statusKnown: true,
    method: 'pix',
    amount: PAYMENT_AMOUNT,
    checkoutUrl: null,
    pix: { qrCode: 'qr', qrCodeText: '000201' },
    card: null,
    subscriptionRef: null,
  }),
  reload: (id) => machine.db.fork().findOne(Payment, { id }),
  createdEvent: 'payment.created',
};

let paidPaymentId: string;

/** A refund's create through its use case (refunds/create.ts), of a paid payment at gateway_a. */
const refunds: Kind = {
  name: 'a refund',
  create: (context, externalId) => createRefund(context, paidPaymentId, { externalId, amount: 100 }),
  answer: () => ({ gatewayRef: `re_${++counter}`, paymentRef: 'pi_paid', status: 'succeeded', rawStatus: 'DONE', statusKnown: true, amount: 100, failureReason: null }),
  reload: (id) => machine.db.fork().findOne(Refund, { id }),
  createdEvent: 'refund.created',
};

beforeAll(async () => {
  const em = machine.db.fork();
  const paid = em.create(Payment, {
    environment: machine.environmentId,
    externalId: 'paid-for-refunds',
    method: 'pix',
    gateway: 'gateway_a',
    amount: 1_000_000,
    requestHash: 'a'.repeat(64),
    gatewayRef: 'pi_paid',
    status: 'paid',
    createdAt: new Date(),
  });
  await em.flush();
  paidPaymentId = paid.id;
});

/** A request context whose clock counts its reads: a waiting request reads it once a try, to take a lapsed lease. */
function countingTries(): { context: RequestContext; tries: () => number } {
  const base = machine.context();
  let reads = 0;
  const now = () => {
    reads++;
    return base.services.now();
  };
  return { context: { ...base, services: { ...base.services, now } }, tries: () => reads };
}

const createdEvents = async (kind: Kind, resourceId: string) =>
  (await machine.db.fork().find(OutboxEvent, { resourceId })).filter((event) => event.type === kind.createdEvent).length;

const keysAsked = () => machine.gateway.requests.map((request) => (request as { idempotencyKey: string }).idempotencyKey);

describe.each([payments, refunds])('the registration machine, for $name', (kind) => {
  it('registers a fresh create: the gateway called once, the row registered, its lease and sealed request gone, one created event', async () => {
    machine.gateway.requests.length = 0;
    const answer = kind.answer();
    machine.gateway.answer(async () => answer);
    const created = await kind.create(machine.context(), `fresh-${++counter}`);
    expect(created.replayed).toBe(false);
    const row = (await kind.reload(created.resource.id))!;
    expect(row.gatewayRef).toBe(answer.gatewayRef);
    expect(row.registrationLeaseUntil).toBeNull();
    expect(row.pendingRequestSealed).toBeNull();
    expect(machine.gateway.requests).toHaveLength(1);
    expect(await createdEvents(kind, row.id)).toBe(1);
  });

  it('makes a concurrent repeat wait for the holder, then answers what the holder registered without calling the gateway', async () => {
    machine.gateway.requests.length = 0;
    const externalId = `concurrent-${++counter}`;
    const answer = kind.answer();
    const held = heldCall(async () => answer);
    machine.gateway.answer(held.call);
    const first = kind.create(machine.context(), externalId);
    await held.started;
    const repeat = countingTries();
    const second = kind.create(repeat.context, externalId);
    // The repeat found the lease held three times and still waits.
    await eventually(async () => repeat.tries() >= 3, 15_000, 'three tries of the repeat');
    held.release();
    const [holder, waiter] = await Promise.all([first, second]);
    expect(holder.replayed).toBe(false);
    expect(waiter.replayed).toBe(true);
    expect(waiter.resource.id).toBe(holder.resource.id);
    expect(waiter.resource.gatewayRef).toBe(answer.gatewayRef);
    expect(machine.gateway.requests).toHaveLength(1);
    expect(await createdEvents(kind, holder.resource.id)).toBe(1);
  });

  it('takes over a lapsed lease with the same idempotency key; the dead holder’s late answer registers nothing twice', async () => {
    machine.gateway.requests.length = 0;
    const externalId = `take-over-${++counter}`;
    const lateAnswer = kind.answer();
    const hung = heldCall(async () => lateAnswer);
    machine.gateway.answer(hung.call);
    const first = kind.create(machine.context(), externalId);
    await hung.started;
    // The holder is presumed dead: its lease ran out while its call hung.
    const em = machine.db.fork();
    const entity = kind === payments ? Payment : Refund;
    const row = (await em.findOne(entity as typeof Payment, { externalId, environment: machine.environmentId }))!;
    await em.nativeUpdate(entity as typeof Payment, { id: row.id }, { registrationLeaseUntil: new Date(Date.now() - 1_000) });

    const answer = kind.answer();
    machine.gateway.answer(async () => answer);
    const takeOver = await kind.create(machine.context(), externalId);
    // This request made the call that registered it: new work, not a replay.
    expect(takeOver.replayed).toBe(false);
    expect(takeOver.resource.gatewayRef).toBe(answer.gatewayRef);
    expect(keysAsked()).toHaveLength(2);
    expect(keysAsked()[1]).toBe(keysAsked()[0]);

    hung.release();
    const late = await first;
    expect(late.resource.gatewayRef).toBe(answer.gatewayRef);
    expect((await kind.reload(row.id))!.gatewayRef).toBe(answer.gatewayRef);
    expect(await createdEvents(kind, row.id)).toBe(1);
  });

  it('releases the lease and keeps the row when the gateway is unavailable, so a retry completes it at once with the same key', async () => {
    machine.gateway.requests.length = 0;
    const externalId = `unavailable-${++counter}`;
    machine.gateway.answer(async () => {
      throw GatewayFailure.transport('gateway_a', 'no answer in time', 'timeout', new Error('timeout'));
    });
    const failed = await kind.create(machine.context(), externalId).then(
      () => null,
      (error: unknown) => error,
    );
    expect((failed as GatewayFailure).kind).toBe('unavailable');
    const entity = kind === payments ? Payment : Refund;
    const kept = (await machine.db.fork().findOne(entity as typeof Payment, { externalId, environment: machine.environmentId }))!;
    expect(kept.gatewayRef).toBeNull();
    expect(kept.registrationLeaseUntil).toBeNull();
    expect(kept.pendingRequestSealed).not.toBeNull();

    const answer = kind.answer();
    machine.gateway.answer(async () => answer);
    const retried = await kind.create(machine.context(), externalId);
    expect(retried.resource.id).toBe(kept.id);
    expect(retried.resource.gatewayRef).toBe(answer.gatewayRef);
    expect(retried.replayed).toBe(false);
    expect(keysAsked()[1]).toBe(keysAsked()[0]);
  });
});

/** What a refund's own rule changes on the machine (refunds/registration.ts). */
describe('the registration machine, for a refund, by its own rule', () => {
  const rowOf = (externalId: string) => machine.db.fork().findOne(Refund, { externalId, environment: machine.environmentId });

  it('keeps a refund the gateway refused, failed with its reason, and takes it over no more', async () => {
    const externalId = `refused-${++counter}`;
    machine.gateway.answer(async () => {
      throw GatewayFailure.refused('gateway_a', [{ path: ['amount'], message: 'above the refundable balance' }]);
    });
    const created = (await refunds.create(machine.context(), externalId)) as Created<Refund>;
    expect(created.resource.status).toBe('failed');
    expect(created.resource.failureReason).toBe('the gateway refused the refund: above the refundable balance');
    const events = (await machine.db.fork().find(OutboxEvent, { resourceId: created.resource.id })).map((event) => event.type).sort();
    expect(events).toEqual(['refund.created', 'refund.failed']);
    // Final: reconciliation's take-over passes it by, whatever its lease says.
    machine.gateway.requests.length = 0;
    await RECONCILED_REFUNDS.read(machine.db.fork(), machine.services, created.resource.id);
    expect(machine.gateway.requests).toHaveLength(0);
  });

  it('removes a refund its gateway cannot make, so the externalId is free, and answers the failure (501 at the edge)', async () => {
    const externalId = `unsupported-${++counter}`;
    machine.gateway.answer(async () => {
      throw GatewayFailure.unsupported('gateway_a', { action: 'refund' });
    });
    const failed = await refunds.create(machine.context(), externalId).then(
      () => null,
      (error: unknown) => error,
    );
    expect((failed as GatewayFailure).kind).toBe('unsupported');
    expect(await rowOf(externalId)).toBeNull();
  });

  it('is finished by reconciliation when nobody repeats it: the stored request, the same key, registered once', async () => {
    machine.gateway.requests.length = 0;
    const externalId = `reconciled-${++counter}`;
    machine.gateway.answer(async () => {
      throw GatewayFailure.answered('gateway_a', 'create refund', 503);
    });
    await refunds.create(machine.context(), externalId).catch(() => null);
    const kept = (await rowOf(externalId))!;
    expect(kept.registrationLeaseUntil).toBeNull();

    const answer = refunds.answer();
    machine.gateway.answer(async () => answer);
    await RECONCILED_REFUNDS.read(machine.db.fork(), machine.services, kept.id);
    const registered = (await rowOf(externalId))!;
    expect(registered.gatewayRef).toBe(answer.gatewayRef);
    expect(registered.status).toBe('succeeded');
    expect(keysAsked()).toHaveLength(2);
    expect(keysAsked()[1]).toBe(keysAsked()[0]);
    expect(await createdEvents(refunds, kept.id)).toBe(1);
  });
});
