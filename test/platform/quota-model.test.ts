/**
 * The monthly quota against a model, driven by random sequences of what
 * happens to a merchant in a month: bursts of creates, concurrent repeats of
 * one externalId, gateway refusals, gateway errors and their retries,
 * replays, the limit set, raised, lowered and removed. On PostgreSQL the
 * creates are spread over two nodes of one deployment.
 *
 * After every step: no more payments were accepted since the limit was last
 * set than it allows, every create the model says has room is accepted (the
 * counter never refuses too early either), and `used` is exactly the
 * payments the gateway registered.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { onPostgres } from '../support/database';
import { simulatorCredentials } from '../support/gateways';
import { call, validPayment, type Reply } from '../support/http';
import { startTestService, startTwoNodes, type TestService, type TwoNodes } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';
import { gatewaySimulators, type GatewaySimulator } from '../../server/sandbox/simulators';

let nodes: TestService[];
let stopAll: () => Promise<void>;
let gateway: GatewaySimulator;
const credentials = simulatorCredentials().gateway_a;

beforeAll(async () => {
  if (onPostgres) {
    const two: TwoNodes = await startTwoNodes({ RATE_LIMIT_PAYMENTS_CREATE: '100000' });
    nodes = [two.first, two.second];
    stopAll = () => two.stop();
  } else {
    const one = await startTestService({ env: { RATE_LIMIT_PAYMENTS_CREATE: '100000' } });
    nodes = [one];
    stopAll = () => one.stop();
  }
  gateway = await gatewaySimulators.gateway_a({ credentials });
}, 120_000);
afterAll(async () => {
  await gateway?.close();
  await stopAll?.();
});

interface Model {
  limit: number | null;
  /** Payments the gateway registered this month: what `used` must say. */
  registered: number;
  /** externalIds whose create ended in 502 with the payment left to complete: admitted, not registered. */
  pending: string[];
  /** Registered externalIds, for replays. */
  done: string[];
}

interface Real {
  tenant: TestTenant;
  admin: TestService['admin'];
  /** Round-robin over the nodes. */
  next(): TestService;
}

const room = (m: Model) => (m.limit === null ? Infinity : Math.max(0, m.limit - m.registered - m.pending.length));
let serial = 0;
const newExternalId = () => `quota-model-${process.pid}-${++serial}`;
const create = (real: Real, externalId = newExternalId()) => call(real.next().url, 'POST', '/v1/payments', { key: real.tenant.apiKey, body: validPayment({ externalId }) });
const count = (replies: Reply[], status: number) => replies.filter((r) => r.status === status).length;

async function expectUsed(real: Real, model: Model) {
  expect((await real.admin.organizations.usage({ organizationId: real.tenant.organizationId })).used).toBe(model.registered);
}

/** A 402 with the limit, and `used` as it was at that moment: at least what was registered before, at most with what the same burst accepted. */
function expectRefusal(reply: Reply, model: Model, acceptedAlongside = 0) {
  expect(reply.status).toBe(402);
  expect(reply.body).toMatchObject({ error: 'billing_monthly_tx_limit_reached', limit: model.limit });
  expect(reply.body.used).toBeGreaterThanOrEqual(model.registered);
  expect(reply.body.used).toBeLessThanOrEqual(model.registered + acceptedAlongside);
}

/** `size` creates of new externalIds at once: exactly as many as there is room for are accepted. */
class Burst implements fc.AsyncCommand<Model, Real> {
  constructor(readonly size: number) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const expected = Math.min(this.size, room(model));
    const replies = await Promise.all(Array.from({ length: this.size }, () => create(real)));
    expect(count(replies, 201)).toBe(expected);
    for (const refused of replies.filter((r) => r.status !== 201)) expectRefusal(refused, model, expected);
    model.registered += expected;
    model.done.push(...replies.filter((r) => r.status === 201).map((r) => r.body.externalId as string));
    await expectUsed(real, model);
  }
  toString = () => `Burst(${this.size})`;
}

/** `size` creates of one new externalId at once: one payment, all answered with it, or all refused. */
class Repeats implements fc.AsyncCommand<Model, Real> {
  constructor(readonly size: number) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const externalId = newExternalId();
    const replies = await Promise.all(Array.from({ length: this.size }, () => create(real, externalId)));
    if (room(model) > 0) {
      expect(count(replies, 201)).toBe(this.size);
      expect(new Set(replies.map((r) => r.body.id)).size).toBe(1);
      model.registered += 1;
      model.done.push(externalId);
    } else {
      for (const reply of replies) expectRefusal(reply, model);
    }
    await expectUsed(real, model);
  }
  toString = () => `Repeats(${this.size})`;
}

/** The gateway refuses the create (400): nothing is used. */
class GatewayRefuses implements fc.AsyncCommand<Model, Real> {
  check = (m: Readonly<Model>) => room(m) > 0;
  async run(model: Model, real: Real) {
    gateway.injectFault('createPayment', { kind: 'validation' }, 1);
    expect((await create(real)).status).toBe(400);
    await expectUsed(real, model);
  }
  toString = () => 'GatewayRefuses';
}

/** The gateway fails (5xx) or its answer is lost: 502, and the payment stays admitted until a retry completes it. */
class GatewayFails implements fc.AsyncCommand<Model, Real> {
  constructor(readonly kind: 'server_error' | 'drop_response') {}
  check = (m: Readonly<Model>) => room(m) > 0;
  async run(model: Model, real: Real) {
    gateway.injectFault('createPayment', { kind: this.kind }, 1);
    const externalId = newExternalId();
    expect((await create(real, externalId)).status).toBe(502);
    model.pending.push(externalId);
    await expectUsed(real, model);
  }
  toString = () => `GatewayFails(${this.kind})`;
}

/** The merchant retries a create that ended in 502: it completes, whatever the limit says now. */
class Retry implements fc.AsyncCommand<Model, Real> {
  check = (m: Readonly<Model>) => m.pending.length > 0;
  async run(model: Model, real: Real) {
    const externalId = model.pending.shift()!;
    const reply = await create(real, externalId);
    expect(reply.status).toBe(201);
    // This request registered the payment at its gateway: new work, so no replay.
    expect(reply.headers.get('idempotent-replayed')).toBeNull();
    model.registered += 1;
    model.done.push(externalId);
    await expectUsed(real, model);
  }
  toString = () => 'Retry';
}

/** A repeat of a registered payment is answered with it and uses nothing. */
class Replay implements fc.AsyncCommand<Model, Real> {
  check = (m: Readonly<Model>) => m.done.length > 0;
  async run(model: Model, real: Real) {
    const reply = await create(real, model.done[0]);
    expect(reply.status).toBe(201);
    expect(reply.headers.get('idempotent-replayed')).toBe('true');
    await expectUsed(real, model);
  }
  toString = () => 'Replay';
}

/** The operator sets the limit relative to what is used and admitted now (negative: below it). */
class SetLimit implements fc.AsyncCommand<Model, Real> {
  constructor(readonly above: number | null) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const limit = this.above === null ? null : Math.max(0, model.registered + model.pending.length + this.above);
    await real.admin.organizations.setBilling({ organizationId: real.tenant.organizationId, monthlyTxLimit: limit });
    model.limit = limit;
  }
  toString = () => (this.above === null ? 'RemoveLimit' : `SetLimit(admitted ${this.above >= 0 ? '+' : ''}${this.above})`);
}

const commands = [
  fc.integer({ min: 1, max: 6 }).map((n) => new Burst(n)),
  fc.integer({ min: 2, max: 5 }).map((n) => new Repeats(n)),
  fc.constant(new GatewayRefuses()),
  fc.constantFrom('server_error' as const, 'drop_response' as const).map((kind) => new GatewayFails(kind)),
  fc.constant(new Retry()),
  fc.constant(new Replay()),
  fc.option(fc.integer({ min: -2, max: 4 }), { nil: null, freq: 4 }).map((above) => new SetLimit(above)),
];

it('never accepts more payments than the limit allows, never refuses one it allows, and used stays exact', async () => {
  let turn = 0;
  await fc.assert(
    fc.asyncProperty(fc.commands(commands, { maxCommands: 14 }), async (steps) => {
      const tenant = await createTenant(nodes[0]!);
      const admin = nodes[0]!.admin;
      await admin.gateways.configure({ environmentId: tenant.environmentId, gateway: 'gateway_a', baseUrl: gateway.url, credentials });
      await admin.routing.set({ environmentId: tenant.environmentId, method: 'PIX', gateway: 'gateway_a' });
      await admin.organizations.setBilling({ organizationId: tenant.organizationId, monthlyTxLimit: 3 });
      const real: Real = { tenant, admin, next: () => nodes[turn++ % nodes.length]! };
      await fc.asyncModelRun(() => ({ model: { limit: 3, registered: 0, pending: [], done: [] }, real }), steps);
    }),
    { numRuns: Number(process.env.QUOTA_MODEL_RUNS ?? 12), endOnFailure: true },
  );
}, 600_000);
