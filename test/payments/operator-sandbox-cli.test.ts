/** The operator CLI driving the sandbox gateways: outcomes, faults and webhook replays, as in local development. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxEvent } from '../../server/db/entities';
import { cli } from '../support/cli';
import { call, validPayment } from '../support/http';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import type { TestService } from '../support/service';
import type { TestTenant } from '../support/tenant';

let world: SandboxedService;
let service: TestService;
let tenant: TestTenant;

beforeAll(async () => {
  // What the embedded demo does: the simulators run inside the service.
  world = await startSandboxedService({ simulatorsInService: true, routes: { CARD: 'gateway_a', SUBSCRIPTION: 'gateway_b' } });
  ({ service, tenant } = world);
});
afterAll(async () => {
  await world?.stop();
});

const create = (body: unknown) => call(service.url, 'POST', '/v1/payments', { key: tenant.apiKey, body });

describe('payments-admin sim', () => {
  it('declines a card payment, and a faulted create is a 502 once', async () => {
    const payment = (await create(validPayment({ method: 'card' }))).body;
    const declined = await cli(service, ['sim', 'decline', payment.id]);
    expect(declined.json.status).toBe('failed');

    const fault = await cli(service, ['sim', 'fault', 'gateway_a', 'createPayment', 'server_error', '--times', '1']);
    expect(fault.code).toBe(0);
    expect((await create(validPayment({ method: 'card' }))).status).toBe(502);
    expect((await create(validPayment({ method: 'card' }))).status).toBe(201);
  });

  it('drives a subscription and replays its webhooks without double counting', async () => {
    const created = await call(service.url, 'POST', '/v1/subscriptions', {
      key: tenant.apiKey,
      body: { amount: 990, interval: 'monthly', externalId: 'cli-sub', customer: { name: 'A', email: 'a@b.co', document: '12345678909' } },
    });
    const renewed = await cli(service, ['sim', 'renew', created.body.id]);
    expect(renewed.json.nextBillingAt).not.toBe(created.body.nextBillingAt);
    const replay = await cli(service, ['sim', 'replay', 'gateway_b', '--last', '3', '--reverse']);
    expect(replay.json.replayed.length).toBeGreaterThan(0);
    const events = await service.services.db.fork().find(OutboxEvent, { resourceId: created.body.id });
    expect(events.filter((e) => e.type === 'subscription.renewed')).toHaveLength(1);
    const pastDue = await cli(service, ['sim', 'past-due', created.body.id]);
    expect(pastDue.json.status).toBe('past_due');
  });

  it('says clearly when no simulator runs for a gateway', async () => {
    const plugged = service.services.sandbox;
    service.services.sandbox = null;
    const payment = (await create(validPayment({ method: 'card' }))).body;
    const reply = await cli(service, ['sim', 'pay', payment.id]);
    expect(reply.code).not.toBe(0);
    expect(reply.stderr).toMatch(/No simulator of gateway_a/);
    service.services.sandbox = plugged;
  });
});
