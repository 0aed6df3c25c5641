/**
 * The database unreachable is 503, never 500 (decision 24), and the
 * background jobs stay quiet while it lasts. A service process on PostgreSQL
 * through a TCP relay the test controls takes a steady load of creates and
 * reads from a few clients; the relay is cut for 8 s (every connection
 * dropped, new ones closed at once), then restored. PostgreSQL only: PGlite
 * runs inside the process and cannot be cut off.
 */
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, onPostgres, type TestDatabase } from '../support/database';
import { call, validPayment, type Reply } from '../support/http';
import { eventually, holdsFor } from '../support/outbox-events';
import { startWireCounter, type WireCounter } from '../support/postgres-wire';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';

const CLIENTS = 4;
/** How long the database stays unreachable: the scenario's length, not a wait for anything. */
const CUT_MS = 8_000;
/** Payments created with 201 before the cut and again after the recovery: the load is being served on both sides of it. */
const SERVED = 2 * CLIENTS;

interface Outcome {
  kind: 'create' | 'read';
  externalId?: string;
  body?: Record<string, unknown>;
  status: number;
  retryAfter: string | null;
  error?: string;
  id?: string;
}

describe.skipIf(!onPostgres)('PostgreSQL unreachable for 8 s under load (PostgreSQL only: PGlite cannot be cut off)', () => {
  let database: TestDatabase;
  let wire: WireCounter;
  let service: ServiceProcess;
  const dataDir = mkdtempSync(join(tmpdir(), 'payments-db-outage-'));

  beforeAll(async () => {
    database = await createTestDatabase({ migrated: true });
    if (database.config.kind !== 'postgresql') throw new Error('PostgreSQL only');
    const url = new URL(database.config.url);
    wire = await startWireCounter({ host: url.hostname, port: Number(url.port || 5432) });
    url.host = wire.address;
    service = await startServiceProcess({
      DATA_DIR: dataDir,
      DATABASE_URL: url.toString(),
      SEED_DEMO: 'true',
      // The jobs run often, so an outage would show in their logs at once.
      WEBHOOK_POLL_INTERVAL_MS: '200',
      RECONCILIATION_POLL_INTERVAL_MS: '300',
      RATE_LIMIT_PAYMENTS_CREATE: '100000',
      RATE_LIMIT_DEFAULT: '100000',
    });
  }, 120_000);

  afterAll(async () => {
    wire?.restore();
    await service?.stop();
    await wire?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 201/200 or 503 with Retry-After (never 500), loses nothing, makes one payment and one charge per retried externalId, recovers within 5 s, and logs the outage in a few lines', async () => {
    const adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const whoAmI = await call(service.url, 'GET', '/v1/auth/test', { key: service.apiKey });
    const environmentId = whoAmI.body.environment.id as string;
    const accounts = await fetch(`${service.url}/internal/trpc/gateways.list?input=${encodeURIComponent(JSON.stringify({ environmentId }))}`, { headers: { authorization: `Bearer ${adminToken}` } });
    const pixGateway = ((await accounts.json()) as { result: { data: { gateway: string; baseUrl: string }[] } }).result.data.find((account) => account.gateway === 'gateway_b')!;
    const charges = async () => ((await (await fetch(`${pixGateway.baseUrl}/_sim/stats`)).json()) as { created: { payments: number } }).created.payments;
    const chargesBefore = await charges();

    const outcomes: Outcome[] = [];
    let running = true;
    const client = async () => {
      while (running) {
        const body = validPayment();
        const created: Reply = await call(service.url, 'POST', '/v1/payments', { key: service.apiKey, body });
        outcomes.push({ kind: 'create', externalId: body.externalId as string, body, status: created.status, retryAfter: created.headers.get('retry-after'), error: created.body?.error, id: created.body?.id });
        if (created.status === 201) {
          const read = await call(service.url, 'GET', `/v1/payments/${created.body.id}`, { key: service.apiKey });
          outcomes.push({ kind: 'read', status: read.status, retryAfter: read.headers.get('retry-after'), error: read.body?.error });
        }
        // Pacing: a steady load from each client, not a flood.
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const clients = Array.from({ length: CLIENTS }, client);

    const createdSince = (from: number) => outcomes.slice(from).filter((outcome) => outcome.kind === 'create' && outcome.status === 201).length;
    await eventually(async () => createdSince(0) >= SERVED, 30_000, `${SERVED} payments created before the cut`);
    const logFrom = service.output().length;
    wire.cut();
    // The outage: the clients keep calling for CUT_MS while the database is unreachable, and every answer stays the API's own.
    await holdsFor(CUT_MS, () => outcomes.every((outcome) => [200, 201, 503].includes(outcome.status)), 'only 201/200 or 503 through the outage');
    wire.restore();
    const restoredAt = Date.now();
    const known = outcomes.find((outcome) => outcome.status === 201)!.id!;
    await eventually(async () => (await call(service.url, 'GET', `/v1/payments/${known}`, { key: service.apiKey })).status === 200, 5_000, 'a read served again');
    const recoveryMs = Date.now() - restoredAt;
    const recovered = outcomes.length;
    await eventually(async () => createdSince(recovered) >= SERVED, 30_000, `${SERVED} payments created after the recovery`);
    running = false;
    await Promise.all(clients);
    // The background jobs' "reaches the database again" lines, once their back-off ends (15 s at most).
    await eventually(async () => (service.output().slice(logFrom).match(/reaches the database again/g)?.length ?? 0) >= 2, 20_000, 'the jobs to recover');
    const logTo = service.output().length;

    const statuses = outcomes.reduce<Record<string, number>>((counts, outcome) => ({ ...counts, [`${outcome.kind} ${outcome.status}`]: (counts[`${outcome.kind} ${outcome.status}`] ?? 0) + 1 }), {});
    const unavailable = outcomes.filter((outcome) => outcome.status === 503);
    expect(unavailable.length, 'some requests met the outage').toBeGreaterThan(0);
    expect(outcomes.filter((outcome) => ![200, 201, 503].includes(outcome.status)), 'only 201/200 or 503').toEqual([]);
    for (const outcome of unavailable) {
      expect(outcome.error).toBe('service_unavailable');
      expect(Number(outcome.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(outcome.retryAfter)).toBeLessThanOrEqual(5);
    }
    expect(recoveryMs).toBeLessThan(5_000);

    // Every 201 is readable; every create that got 503, retried with its externalId, is answered.
    const createdIds = outcomes.filter((outcome) => outcome.kind === 'create' && outcome.status === 201).map((outcome) => outcome.id!);
    for (const id of createdIds) expect((await call(service.url, 'GET', `/v1/payments/${id}`, { key: service.apiKey })).status).toBe(200);
    const retried = outcomes.filter((outcome) => outcome.kind === 'create' && outcome.status === 503);
    for (const outcome of retried) {
      const again = await call(service.url, 'POST', '/v1/payments', { key: service.apiKey, body: outcome.body });
      expect([200, 201]).toContain(again.status);
    }

    // Exactly one payment per externalId, each charged once at the gateway.
    const direct = new pg.Client({ connectionString: database.config.kind === 'postgresql' ? database.config.url : '' });
    await direct.connect();
    const externalIds = outcomes.filter((outcome) => outcome.kind === 'create').map((outcome) => outcome.externalId!);
    const rows = await direct.query<{ external_id: string; n: string }>('select external_id, count(*) as n from payments where external_id = any($1) group by external_id', [externalIds]);
    await direct.end();
    expect(rows.rows.filter((row) => Number(row.n) !== 1)).toEqual([]);
    expect(rows.rows).toHaveLength(new Set(externalIds).size);
    expect((await charges()) - chargesBefore).toBe(new Set(externalIds).size);

    // The outage in the log: each request one line; outside them, a handful.
    const lines = service.output().slice(logFrom, logTo).split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line) as Record<string, unknown>);
    const others = lines.filter((line) => !line.req);
    expect(others.length, others.map((line) => line.msg).join('\n')).toBeLessThanOrEqual(10);
    expect(lines.filter((line) => JSON.stringify(line).includes('    at ')), 'no stack').toEqual([]);
    expect(lines.filter((line) => line.req && line.level !== 40).map((line) => line.msg), 'a 503 request line is a warning').toEqual([]);
    console.log(
      `database outage: ${CUT_MS / 1000} s cut, ${outcomes.length} answers ${JSON.stringify(statuses)}, ${retried.length} creates retried after recovery, ` +
        `${createdIds.length} created with 201, first read served ${recoveryMs} ms after restoration, ${lines.length - others.length} request lines and ${others.length} other lines during the outage:\n` +
        others.map((line) => `  ${line.msg}`).join('\n'),
    );
  }, 120_000);
});
