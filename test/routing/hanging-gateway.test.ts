/**
 * A gateway that takes connections and never finishes answering (silent, or
 * trickling one body byte a second) is contained (decision 21): each create
 * sent to it costs at most the gateway timeout and lands on the rule's
 * fallback, the breaker opens so later creates skip it at once, and creates
 * at other gateways and reads keep their latency, since no create holds a
 * database connection while it waits. Latency is compared with medians
 * measured in the same test before the hang.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres } from '../support/database';
import { startSandbox, simulatorCredentials, type Sandbox } from '../support/gateways';
import { call, validPayment, type Reply } from '../support/http';
import { eventually } from '../support/outbox-events';
import { startTestService, type TestService } from '../support/service';
import { startStallingGateway, type Stall, type StallingGateway } from '../support/stalling-gateway';
import { createTenant, type TestTenant } from '../support/tenant';

// Long enough for the fallback's simulator (in this process) to make 20 Pix codes at once on a busy machine; a trickle
// of one byte a second never leaves the connection idle this long.
const TIMEOUT_MS = 4_000;
const HANGING_CREATES = 20;

let service: TestService;

beforeAll(async () => {
  service = await startTestService({
    env: { GATEWAY_TIMEOUT_MS: String(TIMEOUT_MS), ROUTING_BREAKER_COOLDOWN_MS: '600000', ROUTING_BREAKER_WINDOW_MS: '600000', RATE_LIMIT_PAYMENTS_CREATE: '100000', RATE_LIMIT_DEFAULT: '100000' },
  });
}, 180_000);
afterAll(() => service?.stop());

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timed(request: () => Promise<Reply>): Promise<{ reply: Reply; ms: number }> {
  const started = performance.now();
  const reply = await request();
  return { reply, ms: performance.now() - started };
}

const cardPayment = () => validPayment({ method: 'card', card: { installments: 1 }, customer: { ...validPayment().customer, phone: '11987654321' } });
const until = (ms: number) => {
  const end = performance.now() + ms;
  return () => performance.now() > end;
};

/** Card creates at gateway_c and reads, one loop each, until `stop` holds; only the samples that ended before it count. */
async function otherTraffic(tenant: TestTenant, readId: string, stop: () => boolean) {
  const creates: number[] = [];
  const reads: number[] = [];
  const statuses: number[] = [];
  const loop = async (into: number[], request: () => Promise<Reply>) => {
    while (!stop()) {
      const { reply, ms } = await timed(request);
      statuses.push(reply.status);
      if (!stop()) into.push(ms);
    }
  };
  const card = () => call(service.url, 'POST', '/v1/payments', { key: tenant.apiKey, body: cardPayment() });
  const read = () => call(service.url, 'GET', `/v1/payments/${readId}`, { key: tenant.apiKey });
  await Promise.all([loop(creates, card), loop(reads, read)]);
  return { creates, reads, statuses };
}

/** Database sessions of the service inside a transaction, and all of its sessions (PostgreSQL). */
async function sessions(): Promise<{ inTransaction: number; total: number }> {
  const [row] = await service.services.db.fork().execute<{ in_transaction: number; total: number }[]>(
    `select count(*) filter (where state like 'idle in transaction%')::int as in_transaction, count(*)::int as total
       from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
  );
  return { inTransaction: row!.in_transaction, total: row!.total };
}

describe.each<Stall>(['silent', 'trickle'])('gateway_a %s for PIX with the rule [gateway_a, gateway_b]', (stall) => {
  let tenant: TestTenant;
  let sandbox: Sandbox;
  let stalling: StallingGateway;

  beforeAll(async () => {
    tenant = await createTenant(service);
    sandbox = await startSandbox(service, tenant.environmentId);
    await service.admin.routing.set({ environmentId: tenant.environmentId, method: 'PIX', gateways: [{ gateway: 'gateway_a' }, { gateway: 'gateway_b' }] });
    await service.admin.routing.set({ environmentId: tenant.environmentId, method: 'CARD', gateways: [{ gateway: 'gateway_c' }] });
    stalling = await startStallingGateway(stall);
  });
  afterAll(async () => {
    await sandbox?.close();
    await stalling?.close();
  });

  it(`${HANGING_CREATES} concurrent creates each end within the timeout on gateway_b, the breaker opens, other creates and reads keep their latency`, async () => {
    const pix = () => call(service.url, 'POST', '/v1/payments', { key: tenant.apiKey, body: validPayment() });
    // A card payment (gateway_c) to read: nothing here reads at gateway_a once its host stalls.
    const first = await call(service.url, 'POST', '/v1/payments', { key: tenant.apiKey, body: cardPayment() });
    expect(first.body.gateway).toBe('gateway_c');
    // Warm-up, then the normal latency of the other traffic.
    await otherTraffic(tenant, first.body.id, until(500));
    const normal = await otherTraffic(tenant, first.body.id, until(2_000));
    expect(normal.statuses.filter((s) => s !== 200 && s !== 201), 'answers to the other traffic that were not 200 or 201').toEqual([]);

    // gateway_a's host now takes the connection and never finishes an answer.
    await service.admin.gateways.configure({ environmentId: tenant.environmentId, gateway: 'gateway_a', baseUrl: stalling.url, credentials: simulatorCredentials().gateway_a });
    const hanging = Array.from({ length: HANGING_CREATES }, () => timed(pix));
    // All at once, more than the pool's 10 connections: creates holding one while they wait would stall the 11th here.
    await eventually(async () => stalling.requests() === HANGING_CREATES, 15_000, `${HANGING_CREATES} creates waiting at gateway_a`);
    const database = onPostgres ? sessions() : Promise.resolve(null);
    // While the hang holds the 20 creates: until the gateway timeout cuts the first one (or long after it should have).
    const cutBy = performance.now() + 2 * TIMEOUT_MS;
    const during = await otherTraffic(tenant, first.body.id, () => stalling.abandoned() > 0 || performance.now() > cutBy);
    const held = await database;
    expect(stalling.abandoned(), 'calls to the stalled gateway cut by the gateway timeout').toBeGreaterThan(0);
    const hung = await Promise.all(hanging);

    // Each hanging create was cut at the timeout and registered at the fallback.
    expect(hung.map(({ reply }) => [reply.status, reply.body.gateway])).toEqual(Array(HANGING_CREATES).fill([201, 'gateway_b']));
    for (const { reply, ms } of hung) {
      const trace = await service.admin.payments.trace({ environmentId: tenant.environmentId, paymentId: reply.body.id });
      expect(trace.attempts.map((a) => [a.gateway, a.outcome])).toEqual([['gateway_a', 'timeout'], ['gateway_b', 'succeeded']]);
      expect(trace.attempts[0]!.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(trace.attempts[0]!.durationMs).toBeLessThan(TIMEOUT_MS * 1.5);
      expect(ms).toBeLessThan(TIMEOUT_MS * 2.5);
    }

    // Meanwhile other gateways' creates and reads kept their latency, and nothing waited for a database connection.
    expect(during.statuses.filter((s) => s !== 200 && s !== 201), 'answers to the other traffic that were not 200 or 201').toEqual([]);
    expect(during.creates.length).toBeGreaterThanOrEqual(3);
    expect(during.reads.length).toBeGreaterThanOrEqual(3);
    expect(median(during.creates)).toBeLessThanOrEqual(2 * median(normal.creates));
    expect(median(during.reads)).toBeLessThanOrEqual(2 * median(normal.reads));
    // The waiting creates hold no transaction open: at most the two requests of the other traffic are in one.
    if (held) expect(held.inTransaction).toBeLessThanOrEqual(2);
    expect(service.logs()).not.toMatch(/service_unavailable|timeout exceeded when trying to connect/);

    // The breaker is open: new creates skip gateway_a at once, never reaching its host.
    const health = await service.admin.routing.health({ environmentId: tenant.environmentId });
    expect(health.find((h) => h.gateway === 'gateway_a')).toMatchObject({ state: 'open', timeouts: HANGING_CREATES });
    const later = [];
    for (let i = 0; i < 5; i++) later.push(await timed(pix));
    expect(later.map(({ reply }) => [reply.status, reply.body.gateway])).toEqual(Array(5).fill([201, 'gateway_b']));
    expect(stalling.requests()).toBe(HANGING_CREATES);
    for (const { reply, ms } of later) {
      expect((await service.admin.payments.trace({ environmentId: tenant.environmentId, paymentId: reply.body.id })).attempts[0]).toMatchObject({ gateway: 'gateway_a', outcome: 'skipped' });
      expect(ms).toBeLessThan(TIMEOUT_MS / 2);
    }
  }, 120_000);
});

describe('gateway_a silent with no fallback (the rule [gateway_a])', () => {
  it('a create answers 502 gateway_error naming gateway_a once the timeout is past, never hanging', async () => {
    const tenant = await createTenant(service);
    const sandbox = await startSandbox(service, tenant.environmentId);
    const stalling = await startStallingGateway('silent');
    try {
      await service.admin.routing.set({ environmentId: tenant.environmentId, method: 'PIX', gateways: [{ gateway: 'gateway_a' }] });
      await service.admin.gateways.configure({ environmentId: tenant.environmentId, gateway: 'gateway_a', baseUrl: stalling.url, credentials: simulatorCredentials().gateway_a });
      const { reply, ms } = await timed(() => call(service.url, 'POST', '/v1/payments', { key: tenant.apiKey, body: validPayment() }));
      expect(reply.status).toBe(502);
      expect(reply.body).toMatchObject({ error: 'gateway_error', provider: 'gateway_a' });
      expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(ms).toBeLessThan(TIMEOUT_MS * 2);
    } finally {
      await sandbox.close();
      await stalling.close();
    }
  }, 60_000);
});
