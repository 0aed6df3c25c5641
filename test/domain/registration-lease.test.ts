/**
 * The registration lease (domain/registration/lease.ts), on the real
 * database: who may call the gateway for a row that is not registered yet,
 * what the others wait for, and what a failed call leaves behind
 * (routing/fallback.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityManager } from '../../server/db/orm';
import { Payment } from '../../server/domain/payments/payment';
import { paymentRegistration } from '../../server/domain/payments/create';
import { registerRouted } from '../../server/domain/routing/fallback';
import { awaitRegistration } from '../../server/domain/registration/lease';
import type { RoutingTrace } from '../../server/domain/routing/trace';
import { Refusal } from '../../server/domain/refusal';
import type { CreatePaymentInput, GatewayAdapter } from '../../server/gateways';
import { GatewayFailure } from '../../server/gateways/errors';
import type { Services } from '../../server/services';
import { eventually } from '../support/outbox-events';
import { startTestService, type TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';

let service: TestService;
let tenant: TestTenant;
let counter = 0;

beforeAll(async () => {
  service = await startTestService();
  tenant = await createTenant(service);
});
afterAll(() => service?.stop());

/** A payment row as create-once inserts it: no gateway reference, with the given lease. */
async function unregistered(leaseUntil: Date | null): Promise<Payment> {
  const em = service.services.db.fork();
  const payment = em.create(Payment, {
    environment: tenant.environmentId,
    externalId: `lease-${++counter}`,
    gateway: 'gateway_a',
    method: 'pix',
    amount: 1990,
    requestHash: 'a'.repeat(64),
    registrationLeaseUntil: leaseUntil,
  });
  await em.flush();
  return payment;
}

const reload = (id: string) => service.services.db.fork().findOne(Payment, { id });
const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000);

/** The service's ports with the reads of their clock counted: awaitRegistration reads it once a try, to take a lapsed lease. */
function triesCounted(): { services: Services; tries: () => number } {
  let reads = 0;
  const now = () => {
    reads++;
    return service.services.now();
  };
  return { services: { ...service.services, now }, tries: () => reads };
}

/** Registers the row as the holder of its lease would, from outside the waiting request. */
async function registerFromElsewhere(id: string, gatewayRef: string): Promise<void> {
  await service.services.db.fork().nativeUpdate(Payment, { id }, { gatewayRef, registrationLeaseUntil: null });
}

describe('awaitRegistration', () => {
  it('answers a registered row at once, without calling the gateway', async () => {
    const payment = await unregistered(null);
    await registerFromElsewhere(payment.id, 'pi_already');
    let calls = 0;
    const answer = await awaitRegistration(service.services.db.fork(), service.services, { entity: Payment }, payment, async (_em, row) => {
      calls++;
      return row;
    });
    expect(answer.gatewayRef).toBe('pi_already');
    expect(calls).toBe(0);
  });

  it('waits while another request holds a live lease, and answers what it registered', async () => {
    const payment = await unregistered(inSeconds(30));
    let calls = 0;
    const counted = triesCounted();
    const waiting = awaitRegistration(service.services.db.fork(), counted.services, { entity: Payment }, payment, async (_em, row) => {
      calls++;
      return row;
    });
    // It has found the lease held three times and still waits.
    await eventually(async () => counted.tries() >= 3, 15_000, 'three tries of the waiting request');
    await registerFromElsewhere(payment.id, 'pi_by_the_holder');
    expect((await waiting).gatewayRef).toBe('pi_by_the_holder');
    expect(calls).toBe(0);
  });

  it('takes over a lapsed lease (its holder died) and completes the registration once, however many requests wait', async () => {
    const payment = await unregistered(new Date(Date.now() - 1000));
    let calls = 0;
    const requests = Array.from({ length: 5 }, () => triesCounted());
    const register = async (em: EntityManager, row: Payment) => {
      calls++;
      // While registering, the row's lease is this request's, in the future.
      expect((await reload(row.id))!.registrationLeaseUntil!.getTime()).toBeGreaterThan(Date.now());
      // The four others each try to take the lease while this one holds it.
      const before = requests.map((r) => r.tries());
      await eventually(async () => requests.filter((r, i) => r.tries() > before[i]!).length >= 4, 15_000, 'a try of every other request');
      await em.nativeUpdate(Payment, { id: row.id }, { gatewayRef: 'pi_taken_over', registrationLeaseUntil: null });
      return em.fork().findOneOrFail(Payment, { id: row.id });
    };
    const answers = await Promise.all(
      requests.map((r) => awaitRegistration(service.services.db.fork(), r.services, { entity: Payment }, payment, register)),
    );
    expect(calls).toBe(1);
    expect(answers.map((answer) => answer.gatewayRef)).toEqual(Array(5).fill('pi_taken_over'));
  });

  it('answers invalid_input when the row vanished: the gateway refused its holder, which freed the externalId', async () => {
    const payment = await unregistered(inSeconds(30));
    const waiting = awaitRegistration(service.services.db.fork(), service.services, { entity: Payment }, payment, async (_em, row) => row);
    await service.services.db.fork().nativeDelete(Payment, { id: payment.id });
    const refusal = await waiting.then(() => null, (error: unknown) => error);
    expect(refusal).toBeInstanceOf(Refusal);
    expect((refusal as Refusal).code).toBe('invalid_input');
  });
});

/**
 * What a gateway call's failure leaves behind on the path creates run
 * (routing/fallback.ts, registerRouted), with one candidate: the
 * registration steps of a payment, an adapter whose createPayment fails.
 */
describe('registerRouted with a failing gateway', () => {
  const trace = (): RoutingTrace => ({ method: 'PIX', rule: [], candidates: [], attempts: [], chosen: null, reason: 'test' });
  const register = (payment: Payment, createPayment: () => Promise<never>) =>
    registerRouted(
      { em: service.services.db.fork(), services: service.services },
      paymentRegistration(tenant.organizationId),
      payment,
      [{ route: { gateway: 'gateway_a', accountId: 'test', adapter: { createPayment } as unknown as GatewayAdapter }, request: {} as CreatePaymentInput }],
      trace(),
      { immediate: () => 'nothing_found', settle: async () => ({ fate: 'nothing_found' }) },
    ).then(() => null, (reason: unknown) => reason);
  const failing = (failure: GatewayFailure) => async (): Promise<never> => {
    throw failure;
  };

  it('removes the row when the gateway refused the request, so a corrected request can use the externalId', async () => {
    const payment = await unregistered(inSeconds(30));
    const error = await register(payment, failing(GatewayFailure.refused('gateway_a', [{ path: ['customer', 'document'], message: 'is not a valid CPF' }])));
    // The gateway's failure goes up as it is: the edge answers it (400 invalid_input).
    expect((error as GatewayFailure).kind).toBe('refused');
    expect(await reload(payment.id)).toBeNull();
  });

  it('keeps the row and releases its lease when the gateway failed otherwise, so a retry completes it at once', async () => {
    const payment = await unregistered(inSeconds(30));
    const error = await register(payment, failing(GatewayFailure.unavailable('gateway_a', 'timed out')));
    expect((error as GatewayFailure).kind).toBe('unavailable');
    const kept = await reload(payment.id);
    expect(kept).not.toBeNull();
    expect(kept!.registrationLeaseUntil).toBeNull();
    expect(kept!.gatewayRef).toBeNull();
  });

  it('never removes a row that was registered meanwhile', async () => {
    const payment = await unregistered(inSeconds(30));
    await register(payment, async () => {
      await registerFromElsewhere(payment.id, 'pi_registered_meanwhile');
      throw GatewayFailure.refused('gateway_a', []);
    });
    expect((await reload(payment.id))!.gatewayRef).toBe('pi_registered_meanwhile');
  });
});
