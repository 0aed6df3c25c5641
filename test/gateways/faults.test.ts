/**
 * Every injected fault ends in the right ApiError within a bound set by the
 * adapter's timeouts (300 ms here), on all three gateways and operations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_NAMES, type GatewayName } from '../../server/contract/enums';
import type { Fault, SimOperation } from '../../server/contract/sandbox-controls';
import { CUSTOMER, expectApiError, settledWithin, startGateway, subscriptionInput, type GatewayUnderTest } from '../support/gateway-harness';

const BOUND_MS = 3_000;

/** Where each gateway's default validation refusal lands in our request. */
const VALIDATION_PATH: Record<GatewayName, (string | number)[]> = {
  gateway_a: ['card', 'installments'],
  gateway_b: ['card', 'installments'],
  gateway_c: ['customer', 'phone'],
};

const TRANSPORT_FAULTS: { title: string; fault: Fault }[] = [
  { title: 'latency beyond the total timeout', fault: { kind: 'latency', ms: 1_500 } },
  { title: 'hang (no answer at all)', fault: { kind: 'hang' } },
  { title: '500', fault: { kind: 'server_error' } },
  { title: '503', fault: { kind: 'server_error', status: 503 } },
  { title: 'unexpected 4xx', fault: { kind: 'client_error', status: 409 } },
  { title: 'non-JSON body', fault: { kind: 'malformed' } },
  { title: 'JSON of the wrong shape', fault: { kind: 'malformed', body: '{"id":42,"status":null}' } },
  { title: 'created but the response never arrived', fault: { kind: 'drop_response' } },
];

describe.each(GATEWAY_NAMES)('%s faults', (name) => {
  let gw: GatewayUnderTest;
  let seq = 0;
  const key = () => `fault-${name}-${++seq}`;
  const cardPayment = (idempotencyKey = key()) => ({ idempotencyKey, amount: 1500, method: 'card' as const, installments: 2, customer: CUSTOMER });

  beforeAll(async () => {
    gw = await startGateway(name);
  });
  afterAll(async () => {
    await gw.close();
  });

  it.each(TRANSPORT_FAULTS)('createPayment: $title → gateway_error with provider', async ({ fault }) => {
    gw.sim.injectFault('createPayment', fault);
    const result = await settledWithin(gw.adapter.createPayment(cardPayment()), BOUND_MS);
    expect(result.status).toBe('rejected');
    await expectApiError(Promise.reject((result as PromiseRejectedResult).reason), 'gateway_error', { provider: name });
  });

  it('createPayment: latency within the timeout still succeeds', async () => {
    gw.sim.injectFault('createPayment', { kind: 'latency', ms: 20 });
    const payment = await gw.adapter.createPayment(cardPayment());
    expect(payment.status).toBe('pending');
  });

  it('createPayment: a 422 refusal becomes invalid_input on our field path', async () => {
    gw.sim.injectFault('createPayment', { kind: 'validation' });
    const error = await expectApiError(gw.adapter.createPayment(cardPayment()), 'invalid_input');
    expect(error.extra.issues).toEqual([{ path: VALIDATION_PATH[name], message: expect.any(String) }]);
  });

  it('a 422 on a field the adapter cannot attribute is a gateway_error', async () => {
    gw.sim.injectFault('createPayment', { kind: 'validation', field: 'merchant.account' });
    await expectApiError(gw.adapter.createPayment(cardPayment()), 'gateway_error', { provider: name });
  });

  it('a fault lasts exactly the N calls it was injected for', async () => {
    gw.sim.injectFault('createPayment', { kind: 'server_error' }, 2);
    await expectApiError(gw.adapter.createPayment(cardPayment()), 'gateway_error');
    await expectApiError(gw.adapter.createPayment(cardPayment()), 'gateway_error');
    await expect(gw.adapter.createPayment(cardPayment())).resolves.toMatchObject({ status: 'pending' });
  });

  it('a create whose answer was lost, retried with the same key, charges exactly once', async () => {
    const before = gw.sim.stats().created.payments;
    const input = cardPayment(key());
    gw.sim.injectFault('createPayment', { kind: 'drop_response' });
    await expectApiError(gw.adapter.createPayment(input), 'gateway_error', { provider: name });
    expect(gw.sim.stats().created.payments).toBe(before + 1);

    const retried = await gw.adapter.createPayment(input);
    const again = await gw.adapter.createPayment(input);
    expect(again.gatewayRef).toBe(retried.gatewayRef);
    expect(gw.sim.stats().created.payments).toBe(before + 1);
    expect((await gw.adapter.getPayment(retried.gatewayRef)).amount).toBe(1500);

    // A different key is a different charge: the counter is not stuck.
    await gw.adapter.createPayment(cardPayment());
    expect(gw.sim.stats().created.payments).toBe(before + 2);
  });

  it('a subscription create whose answer was lost, retried with the same key, creates one subscription', async () => {
    const before = gw.sim.stats().created.subscriptions;
    const input = subscriptionInput(name, key());
    gw.sim.injectFault('createSubscription', { kind: 'drop_response' });
    await expectApiError(gw.adapter.createSubscription(input), 'gateway_error', { provider: name });
    const retried = await gw.adapter.createSubscription(input);
    expect((await gw.adapter.createSubscription(input)).gatewayRef).toBe(retried.gatewayRef);
    expect(gw.sim.stats().created.subscriptions).toBe(before + 1);
  });

  describe('every other operation', () => {
    const OPERATIONS: { operation: SimOperation; run: (gw: GatewayUnderTest) => Promise<unknown> }[] = [
      { operation: 'getPayment', run: async (g) => g.adapter.getPayment((await g.adapter.createPayment(cardPayment())).gatewayRef) },
      { operation: 'createSubscription', run: (g) => g.adapter.createSubscription(subscriptionInput(name, key())) },
      { operation: 'getSubscription', run: async (g) => g.adapter.getSubscription((await g.adapter.createSubscription(subscriptionInput(name, key()))).gatewayRef) },
      {
        operation: 'cancelSubscription',
        run: async (g) => g.adapter.cancelSubscription((await g.adapter.createSubscription(subscriptionInput(name, key()))).gatewayRef, { atPeriodEnd: false }),
      },
    ];
    const FAULTS: Fault[] = [{ kind: 'hang' }, { kind: 'server_error' }, { kind: 'malformed' }, { kind: 'client_error', status: 409 }];

    for (const { operation, run } of OPERATIONS) {
      it.each(FAULTS)(`${operation}: %o → gateway_error`, async (fault) => {
        gw.sim.injectFault(operation, fault);
        const result = await settledWithin(run(gw), BOUND_MS);
        expect(result.status).toBe('rejected');
        await expectApiError(Promise.reject((result as PromiseRejectedResult).reason), 'gateway_error', { provider: name });
        gw.sim.clearFaults();
      });
    }

    // A read by reference answered not found: the gateway does not know the resource, which no retry changes.
    for (const { operation, run } of OPERATIONS.filter((each) => each.operation.startsWith('get'))) {
      it(`${operation}: not found → missing_gateway_ref`, async () => {
        gw.sim.injectFault(operation, { kind: 'client_error', status: 404 });
        await expectApiError(run(gw), 'missing_gateway_ref');
        gw.sim.clearFaults();
      });
    }
  });
});

describe('network failures', () => {
  it('an unreachable gateway is a gateway_error', async () => {
    const gw = await startGateway('gateway_a');
    await gw.sim.close();
    await expectApiError(gw.adapter.getPayment('pi_x'), 'gateway_error', { provider: 'gateway_a' });
    await gw.adapter.close();
  });
});
