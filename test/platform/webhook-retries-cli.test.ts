/**
 * `payments-admin webhook endpoint … --retries on|off` as an operator runs it,
 * its own process against a real service: the switch is set, shown by
 * `endpoint list`, and a wrong value is refused before anything changes; the
 * list also shows each endpoint's success rate over 24 h and its oldest
 * waiting delivery.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../support/cli';
import { commitPaymentEvents, eventually, newPaymentId } from '../support/outbox-events';
import { startReceiver, type Receiver } from '../support/receiver';
import { createEnvironment, startWebhookService, type WebhookTestService } from '../support/webhook-service';

const BIN = fileURLToPath(new URL('../../bin/payments-admin.js', import.meta.url));

let service: WebhookTestService;
let receiver: Receiver;

beforeAll(async () => {
  // A one-hour first retry: a delivery that fails stays waiting for the whole test.
  service = await startWebhookService({ env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true', WEBHOOK_POLL_INTERVAL_MS: '100', WEBHOOK_RETRY_SCHEDULE: '1h' } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await service?.stop();
});

/** The CLI with human output, in a terminal this many columns wide. */
function human(args: string[], columns = 160): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, '--url', service.url, '--token', service.adminToken, ...args],
      { timeout: 30_000, env: { ...process.env, COLUMNS: String(columns) } },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const rowOf = (stdout: string, id: string) => stdout.split('\n').find((line) => line.startsWith(id)) ?? `(no row for ${id} in:\n${stdout})`;

describe('payments-admin webhook endpoint --retries', () => {
  it('turns automatic retries on and off, and endpoint list shows the switch', async () => {
    const { environmentId } = await createEnvironment(service);
    const created = await cli(service, ['webhook', 'endpoint', 'create', 'http://127.0.0.1:9/hooks', '--env', environmentId]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.json.retries).toBe(false);
    const id: string = created.json.id;

    const header = (await human(['webhook', 'endpoint', 'list', '--env', environmentId])).stdout.split('\n')[0]!;
    expect(header).toMatch(/\bretries\b/);
    expect(rowOf((await human(['webhook', 'endpoint', 'list', '--env', environmentId])).stdout, id)).toMatch(/\bno\b|\bfalse\b/);

    const on = await cli(service, ['webhook', 'endpoint', 'update', id, '--retries', 'on']);
    expect(on.code, on.stderr).toBe(0);
    expect(on.json).toMatchObject({ id, retries: true });
    const listed = await human(['webhook', 'endpoint', 'list', '--env', environmentId]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(rowOf(listed.stdout, id)).toMatch(/\byes\b|\btrue\b/);
    expect((await service.admin.webhooks.listEndpoints({ environmentId }))[0]!.retries).toBe(true);

    const off = await cli(service, ['webhook', 'endpoint', 'update', id, '--retries', 'off']);
    expect(off.json).toMatchObject({ id, retries: false });
  });

  it('refuses a value other than on or off, and changes nothing', async () => {
    const { environmentId } = await createEnvironment(service);
    const endpoint = await service.admin.webhooks.createEndpoint({ environmentId, url: 'http://127.0.0.1:9/hooks', retries: true });
    const wrong = await human(['webhook', 'endpoint', 'update', endpoint.id, '--retries', 'yes']);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('expected on or off');
    expect((await service.admin.webhooks.listEndpoints({ environmentId }))[0]!.retries).toBe(true);
  });

  it('creates an endpoint with retries on', async () => {
    const { environmentId } = await createEnvironment(service);
    const created = await cli(service, ['webhook', 'endpoint', 'create', 'http://127.0.0.1:9/hooks', '--env', environmentId, '--retries', 'on']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.json.retries).toBe(true);
  });

  it("endpoint list shows each endpoint's success over the last 24 h and how long its oldest pending delivery has waited", async () => {
    const { environmentId } = await createEnvironment(service);
    let n = 0;
    receiver.answer(() => (++n === 1 ? { status: 503 } : { status: 204 }));
    const busy = await service.admin.webhooks.createEndpoint({ environmentId, url: receiver.url('/busy'), retries: true });
    const quiet = await service.admin.webhooks.createEndpoint({ environmentId, url: receiver.url('/quiet'), enabledEvents: ['subscription.canceled'] });
    const paymentId = newPaymentId();
    for (const status of ['created', 'pending', 'paid']) await commitPaymentEvents(service, environmentId, paymentId, [status]);
    // The first delivery failed and waits for its retry an hour later; the two others were sent.
    await eventually(async () => {
      const items = (await service.admin.webhooks.listDeliveries({ endpointId: busy.id })).items;
      const sent = items.filter((d) => d.status === 'SENT').length;
      const waiting = items.filter((d) => d.status === 'PENDING' && d.nextAttemptAt).length;
      return items.length === 3 && sent === 2 && waiting === 1 ? items : undefined;
    });
    // The age is whole seconds: listed once the waiting delivery counts as a second old, so it shows as more than nothing.
    await eventually(async () => ((await service.admin.webhooks.listEndpoints({ environmentId })).find((e) => e.id === busy.id)?.health.oldestPendingAgeSeconds ?? 0) >= 1, 15_000, 'the waiting delivery a second old');

    const listed = await cli(service, ['webhook', 'endpoint', 'list', '--env', environmentId]);
    const byId = new Map(listed.json.map((e: { id: string }) => [e.id, e]));
    expect(byId.get(busy.id)).toMatchObject({ health: { attempts24h: 3, sent24h: 2, successRate24h: 2 / 3, oldestPendingAgeSeconds: expect.any(Number) } });
    expect((byId.get(busy.id) as { health: { oldestPendingAgeSeconds: number } }).health.oldestPendingAgeSeconds).toBeGreaterThanOrEqual(1);
    expect(byId.get(quiet.id)).toMatchObject({ health: { attempts24h: 0, sent24h: 0, successRate24h: null, oldestPendingAgeSeconds: null } });

    const table = await human(['webhook', 'endpoint', 'list', '--env', environmentId]);
    expect(table.stdout.split('\n')[0]).toMatch(/ok 24h\s+oldest pending/);
    expect(rowOf(table.stdout, busy.id)).toMatch(/66% of 3\s+\d+s/);
    expect(rowOf(table.stdout, quiet.id)).toMatch(/false\s+-\s+-/);
  });
});
