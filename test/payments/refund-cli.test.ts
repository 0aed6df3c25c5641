/**
 * `payments-admin refund create|show|list` as an operator runs it, its own
 * process against a real service whose Pix payments go to the gateway_a
 * simulator over real sockets: a partial refund pending until the gateway
 * settles it, the same --external-id giving the same refund, the rest
 * refunded without --amount, the list of a payment and of an environment (a
 * table that fits 80 columns, or JSON), and the refusals with their exit
 * statuses: a payment not paid (conflict), more than is refundable (invalid,
 * naming what is), an unknown refund (not_found), a list without a scope (usage).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../cli/errors';
import { cli } from '../support/cli';
import { call, validPayment } from '../support/http';
import { eventually } from '../support/outbox-events';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';

const BIN = fileURLToPath(new URL('../../bin/payments-admin.js', import.meta.url));

let world: SandboxedService;

beforeAll(async () => {
  world = await startSandboxedService({ routes: { PIX: 'gateway_a' } });
});
afterAll(() => world?.stop());

/** The CLI with human output, in an 80-column terminal. */
function human(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, '--url', world.service.url, '--token', world.service.adminToken, ...args],
      { timeout: 30_000, env: { ...process.env, COLUMNS: '80' } },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const admin = (args: string[]) => cli(world.service, args);

/** A Pix of `amount` cents, paid by the customer at the simulator. */
async function paidPix(amount: number): Promise<{ id: string }> {
  const created = await call(world.service.url, 'POST', '/v1/payments', { key: world.tenant.apiKey, body: validPayment({ amount }) });
  expect(created.status, created.text).toBe(201);
  await world.sandbox.sims.gateway_a.payPayment(created.body.gatewayRef);
  await world.sandbox.sims.gateway_a.flushWebhooks();
  await eventually(async () => (await call(world.service.url, 'GET', `/v1/payments/${created.body.id}`, { key: world.tenant.apiKey })).body.status === 'paid', 15_000, `${created.body.id} paid`);
  return created.body;
}

/** The gateway gives the money back; its notification reaches the service. */
async function settle(gatewayRef: string): Promise<void> {
  await world.sandbox.sims.gateway_a.settleRefund(gatewayRef);
  await world.sandbox.sims.gateway_a.flushWebhooks();
}

// Each CLI run is its own process (a second or more on a busy machine): the tests allow for several.
describe('payments-admin refund', { timeout: 180_000 }, () => {
  it('create part (pending), the same --external-id is the same refund, show follows the gateway, then the rest without --amount', async () => {
    const payment = await paidPix(5000);
    const created = await admin(['refund', 'create', payment.id, '--amount', '2000', '--reason', 'one item returned', '--external-id', 'return-4711']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.json).toMatchObject({ paymentId: payment.id, amount: 2000, status: 'pending', reason: 'one item returned', externalId: 'return-4711', environmentId: world.tenant.environmentId });
    expect(created.json.id).toMatch(/^ref_/);

    const again = await admin(['refund', 'create', payment.id, '--amount', '2000', '--external-id', 'return-4711']);
    expect(again.json.id).toBe(created.json.id);

    await settle(created.json.gatewayRef);
    const shown = await admin(['refund', 'show', created.json.id]);
    expect(shown.json).toMatchObject({ id: created.json.id, status: 'succeeded', amount: 2000 });

    const rest = await admin(['refund', 'create', payment.id]);
    expect(rest.code, rest.stderr).toBe(0);
    // Without --external-id the service made one, printed so a retry can repeat it.
    expect(rest.json).toMatchObject({ amount: 3000, status: 'pending', externalId: expect.any(String) });

    const [listed, ofEnvironment, table] = await Promise.all([
      admin(['refund', 'list', '--payment', payment.id]),
      admin(['refund', 'list', '--env', world.tenant.environmentId]),
      human(['refund', 'list', '--payment', payment.id]),
    ]);
    expect(listed.json.map((refund: { id: string }) => refund.id)).toEqual([rest.json.id, created.json.id]);
    expect(ofEnvironment.json.map((refund: { id: string }) => refund.id)).toEqual(expect.arrayContaining([rest.json.id, created.json.id]));
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id\s+status\s+amount/);
    expect(lines.find((line) => line.includes('succeeded'))).toMatch(/2000/);
    expect(lines.find((line) => line.includes('pending'))).toMatch(/3000/);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
  });

  it('refuses what the API refuses, with its message and exit status', async () => {
    const unpaid = await call(world.service.url, 'POST', '/v1/payments', { key: world.tenant.apiKey, body: validPayment({ amount: 700 }) });
    const notPaid = await human(['refund', 'create', unpaid.body.id]);
    expect(notPaid.code).toBe(EXIT_CODES.conflict);
    expect(notPaid.stdout).toBe('');
    expect(notPaid.stderr).toMatch(/^error \(conflict\): .*paid/);

    const payment = await paidPix(1000);
    const over = await human(['refund', 'create', payment.id, '--amount', '1001']);
    expect(over.code).toBe(EXIT_CODES.invalid);
    expect(over.stderr).toMatch(/amount/);
    expect(over.stderr).toMatch(/1000/);

    const [unknown, unscoped, badAmount] = await Promise.all([
      admin(['refund', 'show', 'ref_nope']),
      human(['refund', 'list']),
      human(['refund', 'create', payment.id, '--amount', '10.50']),
    ]);
    expect(unknown.code).toBe(EXIT_CODES.not_found);
    expect(unscoped.code).toBe(EXIT_CODES.usage);
    expect(unscoped.stderr).toMatch(/--env .* or --payment/);
    expect(badAmount.code).toBe(EXIT_CODES.usage);
    expect(badAmount.stderr).toMatch(/cents/);
  });
});
