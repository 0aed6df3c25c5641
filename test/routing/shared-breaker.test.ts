/**
 * The circuit breaker is one per gateway and environment for every node
 * (decision 21): two nodes on one PostgreSQL share it through Redis. The
 * breaker opened by one node's failures makes the other skip the gateway, and
 * after the cool-down exactly one probe goes out whichever node sends it.
 * Without Redis (PGlite, one node) the same logic runs in the node's memory:
 * test/routing/fallback.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres } from '../support/database';
import { startSandbox, type Sandbox } from '../support/gateways';
import { call, validPayment } from '../support/http';
import { eventually } from '../support/outbox-events';
import { startTwoNodes, type TwoNodes } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';

const COOLDOWN_MS = 2_000;

describe.runIf(onPostgres)('two nodes share each gateway breaker through Redis', () => {
  let nodes: TwoNodes;
  let tenant: TestTenant;
  let sandbox: Sandbox;
  beforeAll(async () => {
    nodes = await startTwoNodes({ ROUTING_BREAKER_COOLDOWN_MS: String(COOLDOWN_MS), RATE_LIMIT_PAYMENTS_CREATE: '100000' });
    tenant = await createTenant(nodes.first);
    sandbox = await startSandbox(nodes.first, tenant.environmentId);
    await nodes.first.admin.routing.set({ environmentId: tenant.environmentId, method: 'PIX', gateways: [{ gateway: 'gateway_a' }, { gateway: 'gateway_b' }] });
  });
  afterAll(async () => {
    await sandbox?.close();
    await nodes?.stop();
  });

  const create = (url: string) => call(url, 'POST', '/v1/payments', { key: tenant.apiKey, body: validPayment() });

  it("one node's failures open the breaker for both; after the cool-down one probe closes it for both", async () => {
    sandbox.sims.gateway_a.injectFault('createPayment', { kind: 'server_error' }, 100_000);
    for (let i = 0; i < 5; i++) expect((await create(nodes.first.url)).body.gateway).toBe('gateway_b');
    expect(sandbox.sims.gateway_a.stats().calls.createPayment).toBe(5);

    // The second node never saw gateway_a fail, yet skips it.
    const health = await nodes.second.admin.routing.health({ environmentId: tenant.environmentId });
    expect(health.find((h) => h.gateway === 'gateway_a')).toMatchObject({ state: 'open', failures: 5 });
    for (let i = 0; i < 5; i++) {
      const reply = await create(nodes.second.url);
      expect(reply.body.gateway).toBe('gateway_b');
      const trace = await nodes.second.admin.payments.trace({ environmentId: tenant.environmentId, paymentId: reply.body.id });
      expect(trace.attempts[0]).toMatchObject({ gateway: 'gateway_a', outcome: 'skipped' });
    }
    expect(sandbox.sims.gateway_a.stats().calls.createPayment).toBe(5);

    // Cool-down over, gateway_a recovered: of 10 creates racing on both nodes, one probes gateway_a, the others skip it.
    sandbox.sims.gateway_a.clearFaults();
    // The probe answers slowly, so every racing create asks the breaker while it is still out.
    sandbox.sims.gateway_a.injectFault('createPayment', { kind: 'latency', ms: 1_500 });
    await eventually(async () => {
      const health = await nodes.second.admin.routing.health({ environmentId: tenant.environmentId });
      return health.find((h) => h.gateway === 'gateway_a')!.state === 'half_open';
    }, COOLDOWN_MS + 15_000, 'the cool-down of gateway_a to end');
    const racing = await Promise.all(Array.from({ length: 10 }, (_, i) => create(i % 2 === 0 ? nodes.first.url : nodes.second.url)));
    expect(racing.every((r) => r.status === 201)).toBe(true);
    expect(sandbox.sims.gateway_a.stats().calls.createPayment).toBe(6);
    expect(racing.filter((r) => r.body.gateway === 'gateway_a')).toHaveLength(1);

    // The probe succeeded: both nodes send to gateway_a again.
    expect((await create(nodes.second.url)).body.gateway).toBe('gateway_a');
    expect((await create(nodes.first.url)).body.gateway).toBe('gateway_a');
    const after = await nodes.first.admin.routing.health({ environmentId: tenant.environmentId });
    expect(after.find((h) => h.gateway === 'gateway_a')).toMatchObject({ state: 'closed', openUntil: null });
  });
});
