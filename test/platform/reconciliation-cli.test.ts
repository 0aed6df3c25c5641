/**
 * `payments-admin reconciliation status` as an operator runs it, its own
 * process against a real service: what waits for a read, what is overdue and
 * what its gateway lost (a payment whose reference the gateway no longer
 * knows, found by a sync), in one environment or on the whole platform, as a
 * summary and a table that fits a terminal, or as the API's JSON.
 * Background reconciliation is off in this service, so nothing moves between
 * the reads the test makes.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../cli/errors';
import { Payment } from '../../server/domain/payments/payment';
import { cli } from '../support/cli';
import { call, validPayment } from '../support/http';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { createTenant, type TestTenant } from '../support/tenant';

const BIN = fileURLToPath(new URL('../../bin/payments-admin.js', import.meta.url));

let world: SandboxedService;
let quiet: TestTenant;
let lostId: string;
let overdueId: string;
let pendingId: string;

/** The CLI with human output, in a terminal this many columns wide. */
function human(args: string[], columns = 80): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, '--url', world.service.url, '--token', world.service.adminToken, ...args],
      { timeout: 30_000, env: { ...process.env, COLUMNS: String(columns) } },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The table's row of a resource (the line that starts with its id). */
const rowOf = (stdout: string, id: string) => stdout.split('\n').find((line) => line.startsWith(id)) ?? `(no row for ${id} in:\n${stdout})`;

beforeAll(async () => {
  world = await startSandboxedService({ env: { RECONCILIATION: 'false' }, routes: { PIX: 'gateway_a', CARD: 'gateway_a' } });
  quiet = await createTenant(world.service);
});
afterAll(() => world?.stop());

const api = (method: 'GET' | 'POST', path: string, body?: unknown) => call(world.service.url, method, path, { key: world.tenant.apiKey, body });

describe('payments-admin reconciliation status', () => {
  it('says nothing is waiting while no payment is unfinished', async () => {
    const result = await human(['reconciliation', 'status', '--env', world.tenant.environmentId]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      `Reconciliation of ${world.tenant.environmentId}\n0 waiting for a read, 0 overdue, 0 lost by their gateway\nNothing is waiting for a read and no gateway lost anything.\n`,
    );
  });

  it('lists the payment its gateway lost first, then the overdue one, then the pending one', async () => {
    // A card whose reference the gateway no longer knows: the sync answers 409 and records it.
    const lost = await api('POST', '/v1/payments', validPayment({ method: 'card' }));
    expect(lost.status).toBe(201);
    lostId = lost.body.id;
    await world.service.services.db.fork().nativeUpdate(Payment, { id: lostId }, { gatewayRef: 'pi_unknown_at_the_gateway' });
    expect((await api('POST', `/v1/payments/${lostId}/sync`)).status).toBe(409);
    // A Pix whose read was due five minutes ago (the reconciler that would read it is off here).
    const overdue = await api('POST', '/v1/payments', validPayment({ method: 'pix' }));
    overdueId = overdue.body.id;
    await world.service.services.db.fork().nativeUpdate(Payment, { id: overdueId }, { reconcileAt: new Date(Date.now() - 5 * 60_000 - 10_000) });
    // A Pix just created: its first read is a minute away.
    const pending = await api('POST', '/v1/payments', validPayment({ method: 'pix' }));
    pendingId = pending.body.id;

    const json = await cli(world.service, ['reconciliation', 'status', '--env', world.tenant.environmentId]);
    expect(json.code, json.stderr).toBe(0);
    expect(json.json).toMatchObject({ scheduled: 2, overdue: 1, lost: 1, oldestOverdueAt: expect.any(String) });
    expect(json.json.items.map((item: { id: string }) => item.id)).toEqual([lostId, overdueId, pendingId]);
    expect(json.json.items[0]).toMatchObject({ kind: 'payment', gateway: 'gateway_a', gatewayRef: 'pi_unknown_at_the_gateway', nextReadAt: null, lostAt: expect.any(String) });

    const result = await human(['reconciliation', 'status', '--env', world.tenant.environmentId]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.slice(0, 2)).toEqual([`Reconciliation of ${world.tenant.environmentId}`, '2 waiting for a read, 1 overdue (oldest by 5m), 1 lost by their gateway']);
    expect(lines[3]).toMatch(/^id +status +next read +last read +reads +gateway/);
    // The rows in the API's order, each saying in words how late or how lost it is.
    expect(lines.slice(4, 7).map((line) => line.split(' ')[0])).toEqual([lostId, overdueId, pendingId]);
    expect(rowOf(result.stdout, lostId)).toMatch(/ pending +lost \d+s ago +never +0 +gateway_a/);
    expect(rowOf(result.stdout, overdueId)).toMatch(/ pending +overdue 5m +never +0 +gateway_a/);
    expect(rowOf(result.stdout, pendingId)).toMatch(/ pending +in (\d+s|1m) +never +0 +gateway_a/);
    for (const line of lines) expect(line.length, result.stdout).toBeLessThanOrEqual(80);
  });

  it('platform-wide (the default) names each row’s environment; another environment has nothing', async () => {
    const wide = await human(['reconciliation', 'status'], 160);
    expect(wide.code, wide.stderr).toBe(0);
    expect(wide.stdout).toMatch(/^Reconciliation of all environments\n2 waiting for a read, 1 overdue/);
    expect(wide.stdout).toMatch(/ kind +environment\n/);
    expect(rowOf(wide.stdout, lostId)).toMatch(new RegExp(`payment +${world.tenant.environmentId}$`));

    const other = await human(['reconciliation', 'status', '--env', quiet.environmentId]);
    expect(other.stdout).toContain('Nothing is waiting for a read');
    expect(other.stdout).not.toContain(lostId);
  });

  it('--limit cuts the list after the lost ones and says how many there are', async () => {
    const result = await human(['reconciliation', 'status', '--env', world.tenant.environmentId, '--limit', '1']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(lostId);
    expect(result.stdout).not.toContain(overdueId);
    expect(result.stdout).toContain('(the first 1 of 3: lost first, then the next due; --limit up to 500 shows more)');
  });

  it('a bad --limit is a usage error before any request; an unknown environment is not_found', async () => {
    for (const value of ['0', '501', 'ten']) {
      const result = await human(['reconciliation', 'status', '--limit', value]);
      expect(result.code, value).toBe(EXIT_CODES.usage);
      expect(result.stderr).toMatch(/^error \(usage\): .*expected an integer from 1 to 500/);
    }
    const unknown = await cli(world.service, ['reconciliation', 'status', '--env', 'env_nope']);
    expect(unknown.code).toBe(EXIT_CODES.not_found);
    expect(JSON.parse(unknown.stderr)).toMatchObject({ error: 'not_found', message: expect.stringContaining('env_nope') });
  });

  it('shell completion offers the command and its options', async () => {
    const script = await human(['completion', 'bash']);
    expect(script.stdout).toMatch(/"reconciliation"\) echo "status" ;;/);
    expect(script.stdout).toMatch(/"reconciliation status"\) echo "--env --limit --help" ;;/);
  });
});
