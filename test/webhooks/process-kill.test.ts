/**
 * The service as a real process (`tsx server/main.ts` with the demo tenant),
 * killed with SIGKILL while a delivery is in flight and another committed
 * event is not yet delivered, then started again on the same data.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureHeader } from '../../server/contract/webhook-signature';
import { cli } from '../support/cli';
import { createTestDatabase, onPostgres, type TestDatabase } from '../support/database';
import { call, validPayment } from '../support/http';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';
import { eventually } from '../support/outbox-events';
import { startReceiver, type Receiver } from '../support/receiver';

const dataDir = mkdtempSync(join(tmpdir(), 'payments-webhooks-kill-'));
let database: TestDatabase | undefined;
let receiver: Receiver;
const children: ChildProcessWithoutNullStreams[] = [];

beforeAll(async () => {
  if (onPostgres) database = await createTestDatabase();
  receiver = await startReceiver();
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await receiver?.close();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(): Promise<ServiceProcess> {
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    SEED_DEMO: 'true',
    WEBHOOK_ALLOW_LOCAL_URLS: 'true',
    WEBHOOK_TIMEOUT_MS: '2000',
    WEBHOOK_LEASE_MS: '3000',
    WEBHOOK_POLL_INTERVAL_MS: '200',
  };
  if (database?.config.kind === 'postgresql') env.DATABASE_URL = database.config.url;
  const started = await startServiceProcess(env);
  children.push(started.child);
  return started;
}

describe('a service process killed mid-delivery', () => {
  it('after restart, re-sends the delivery cut short (same bytes) and sends the committed event never sent, once', async () => {
    const first = await start();
    const adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const environmentId = readFileSync(join(dataDir, 'demo-api-key.env'), 'utf8').trim();
    const endpoint = await cli({ url: first.url, adminToken }, ['webhook', 'endpoint', 'create', receiver.url(), '--env', environmentId]);
    expect(endpoint.code).toBe(0);

    // The first delivery is held open by the receiver; the process dies while waiting for the answer.
    let held = false;
    receiver.answer(() => {
      if (held) return { status: 200 };
      held = true;
      return { status: 200, delayMs: 600_000 };
    });
    const payment = await call(first.url, 'POST', '/v1/payments', { key: first.apiKey, body: validPayment() });
    expect(payment.status).toBe(201);
    await receiver.waitFor(1);
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    expect(receiver.received.map((d) => d.json.type)).toEqual(['payment.created']);

    const second = await start();
    const received = await receiver.waitFor(3, 30_000);
    expect(received.map((d) => d.json.type)).toEqual(['payment.created', 'payment.created', 'payment.pending']);
    const [cut, again, pending] = received;
    expect(again!.raw).toBe(cut!.raw);
    for (const header of ['x-service-delivery-id', 'x-service-timestamp', 'x-service-signature']) expect(again!.headers[header]).toBe(cut!.headers[header]);
    for (const delivery of received) {
      expect(delivery.json.data.paymentId).toBe(payment.body.id);
      expect(delivery.headers['x-service-signature']).toBe(signatureHeader(endpoint.json.secret, Number(delivery.headers['x-service-timestamp']), delivery.raw));
    }
    expect(pending!.headers['x-service-delivery-id']).not.toBe(cut!.headers['x-service-delivery-id']);

    // Nothing else on its way: a later payment's events reach the receiver next (the endpoint is served in event order).
    const marker = await call(second.url, 'POST', '/v1/payments', { key: second.apiKey, body: validPayment() });
    expect(marker.status).toBe(201);
    await eventually(async () => receiver.received.some((d) => d.json.data.paymentId === marker.body.id), 30_000, "the later payment's event");
    expect(receiver.received.slice(3).every((d) => d.json.data.paymentId === marker.body.id)).toBe(true);
    const shown = await cli({ url: second.url, adminToken }, ['webhook', 'delivery', 'show', String(cut!.headers['x-service-delivery-id'])]);
    expect(shown.json.status).toBe('SENT');
    expect(shown.json.attemptHistory.map((a: { outcome: string }) => a.outcome)).toEqual(['INTERRUPTED', 'SENT']);

    second.child.kill('SIGTERM');
    expect(await new Promise((resolve) => second.child.once('exit', resolve))).toBe(0);
  }, 120_000);
});
