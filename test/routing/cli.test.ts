/**
 * Routing from the operator CLI, its own process against a real service and
 * the simulators (the forms scripts rely on): `route set` with lists and
 * weights (and the one-gateway form), `route list`, `route explain`,
 * `gateway health` and `payment trace`.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../support/cli';
import { call, validPayment } from '../support/http';
import { startSandbox, type Sandbox } from '../support/gateways';
import { startTestService, type TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';

const BIN = fileURLToPath(new URL('../../bin/payments-admin.js', import.meta.url));

let service: TestService;
let tenant: TestTenant;
let sandbox: Sandbox;

beforeAll(async () => {
  service = await startTestService();
  tenant = await createTenant(service);
  sandbox = await startSandbox(service, tenant.environmentId);
});
afterAll(async () => {
  await sandbox?.close();
  await service?.stop();
});

/** The CLI with human output. */
function human(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, '--url', service.url, '--token', service.adminToken, ...args], { timeout: 30_000, env: { ...process.env, COLUMNS: '160' } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('route set', () => {
  it('takes an ordered list, weights, and the one-gateway form', async () => {
    const env = tenant.environmentId;
    const list = await cli(service, ['route', 'set', 'PIX', 'gateway_a,gateway_b', '--env', env]);
    expect(list.code).toBe(0);
    expect(list.json).toEqual({ environmentId: env, method: 'PIX', gateway: 'gateway_a', gateways: [{ gateway: 'gateway_a', weight: null }, { gateway: 'gateway_b', weight: null }] });

    const weighted = await cli(service, ['route', 'set', 'card', 'gateway_a:80,gateway_b:20', '--env', env]);
    expect(weighted.code).toBe(0);
    expect(weighted.json.gateways).toEqual([{ gateway: 'gateway_a', weight: 80 }, { gateway: 'gateway_b', weight: 20 }]);

    const one = await cli(service, ['route', 'set', 'SUBSCRIPTION', 'gateway_b', '--env', env]);
    expect(one.json).toEqual({ environmentId: env, method: 'SUBSCRIPTION', gateway: 'gateway_b', gateways: [{ gateway: 'gateway_b', weight: null }] });

    const listed = await cli(service, ['route', 'list', '--env', env]);
    expect(listed.json.map((rule: { method: string; gateway: string; order: string }) => [rule.method, rule.gateway, rule.order])).toEqual([
      ['CARD', 'gateway_a', 'gateway_a:80 > gateway_b:20'],
      ['PIX', 'gateway_a', 'gateway_a > gateway_b'],
      ['SUBSCRIPTION', 'gateway_b', 'gateway_b'],
    ]);
    const table = await human(['route', 'list', '--env', env]);
    expect(table.stdout).toMatch(/CARD\s+gateway_a:80 > gateway_b:20/);
  }, 120_000);

  it.each([
    ['gateway_a:70,gateway_b:20', /add up to 100 \(these add up to 90\)/],
    ['gateway_a:80,gateway_b', /all or none/],
    ['gateway_a:8.5,gateway_b:91.5', /whole number from 0 to 100/],
    ['gateway_a,gateway_x', /unknown gateway "gateway_x"/],
    ['gateway_a,gateway_a', /appears twice/],
    ['gateway_a,,gateway_b', /separated by commas/],
  ])('refuses %s with a clear error and changes nothing', async (gateways, message) => {
    const before = await service.admin.routing.list({ environmentId: tenant.environmentId });
    const reply = await human(['route', 'set', 'PIX', gateways, '--env', tenant.environmentId]);
    expect(reply.code).not.toBe(0);
    expect(reply.stderr).toMatch(message);
    expect(await service.admin.routing.list({ environmentId: tenant.environmentId })).toEqual(before);
  }, 60_000);

  it('the operator API refuses bad weights too (the dashboard and scripts call it directly)', async () => {
    /** The field problems a refused call names (the procedure's input check). */
    const problems = async (input: unknown) => {
      try {
        await service.admin.routing.set(input as never);
      } catch (error) {
        return JSON.stringify((error as { cause?: { issues?: unknown } }).cause?.issues ?? error);
      }
      throw new Error('accepted');
    };
    expect(await problems({ environmentId: tenant.environmentId, method: 'PIX', gateways: [{ gateway: 'gateway_a', weight: 50 }, { gateway: 'gateway_b', weight: 20 }] })).toMatch(/add up to 100/);
    expect(await problems({ environmentId: tenant.environmentId, method: 'PIX', gateway: 'gateway_a', gateways: [{ gateway: 'gateway_a' }] })).toMatch(/either gateways/);
    expect(await problems({ environmentId: tenant.environmentId, method: 'PIX', gateways: [{ gateway: 'gateway_a' }, { gateway: 'gateway_a' }] })).toMatch(/once in a rule/);
  });
});

describe('route explain, gateway health and payment trace', () => {
  it('explains where a create would go, shows health, and traces a payment that fell back', async () => {
    const env = tenant.environmentId;
    await cli(service, ['route', 'set', 'PIX', 'gateway_a,gateway_b', '--env', env]);
    await cli(service, ['gateway', 'disable', 'gateway_a', '--env', env]);
    const explained = await cli(service, ['route', 'explain', '--env', env, '--method', 'pix']);
    expect(explained.code).toBe(0);
    expect(explained.json).toMatchObject({
      method: 'PIX',
      rule: [{ gateway: 'gateway_a', weight: null }, { gateway: 'gateway_b', weight: null }],
      candidates: [
        { gateway: 'gateway_a', state: 'disabled', reason: expect.any(String) },
        { gateway: 'gateway_b', state: 'available', reason: expect.any(String) },
      ],
      chosen: 'gateway_b',
      reason: expect.stringContaining('gateway_a passed over'),
    });
    await cli(service, ['gateway', 'enable', 'gateway_a', '--env', env]);

    // A weighted rule: the dry run of an externalId says where its create goes, and the create goes there.
    await cli(service, ['route', 'set', 'PIX', 'gateway_a:50,gateway_b:50', '--env', env]);
    for (const externalId of ['order-1', 'order-2', 'order-3', 'order-4']) {
      const dry = await cli(service, ['route', 'explain', '--env', env, '--method', 'PIX', '--external-id', externalId]);
      const created = await call(service.url, 'POST', '/v1/payments', { key: tenant.apiKey, body: validPayment({ externalId }) });
      expect(created.body.gateway).toBe(dry.json.chosen);
    }

    await cli(service, ['route', 'set', 'PIX', 'gateway_a,gateway_b', '--env', env]);
    sandbox.sims.gateway_a.injectFault('createPayment', { kind: 'server_error' });
    const payment = (await call(service.url, 'POST', '/v1/payments', { key: tenant.apiKey, body: validPayment() })).body;
    expect(payment.gateway).toBe('gateway_b');
    const trace = await cli(service, ['payment', 'trace', payment.id]);
    expect(trace.code).toBe(0);
    expect(trace.json).toMatchObject({
      gateway: 'gateway_b',
      attempts: [
        { gateway: 'gateway_a', outcome: 'unavailable', startedAt: expect.any(String), durationMs: expect.any(Number), detail: 'answered 500' },
        { gateway: 'gateway_b', outcome: 'succeeded', startedAt: expect.any(String), durationMs: expect.any(Number) },
      ],
    });
    const people = await human(['payment', 'trace', payment.id]);
    expect(people.stdout).toMatch(/gateway:\s+gateway_b/);
    expect(people.stdout).toMatch(/gateway_a\s+unavailable/);
    expect(people.stdout).toMatch(/gateway_b\s+succeeded/);

    const health = await cli(service, ['gateway', 'health', '--env', env]);
    expect(health.code).toBe(0);
    const a = health.json.find((row: { gateway: string }) => row.gateway === 'gateway_a');
    expect(a).toMatchObject({ state: 'closed', failures: 1, timeouts: 0, p50Ms: expect.any(Number), p95Ms: expect.any(Number), openUntil: null, lastFailureAt: expect.any(String) });
    expect(health.json.map((row: { gateway: string }) => row.gateway)).toEqual(['gateway_a', 'gateway_b', 'gateway_c']);
    const table = await human(['gateway', 'health', '--env', env]);
    expect(table.stdout).toMatch(/gateway_a\s+closed/);
  }, 180_000);
});
