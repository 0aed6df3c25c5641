/**
 * What each edge answers while PostgreSQL is cut off (decision 24): /v1 and
 * the operator API (admin token, dashboard session) answer 503
 * `service_unavailable` with `Retry-After` in their error format, each
 * request logs one warning line naming the failure's code (no stack), and
 * the service answers again as soon as PostgreSQL is back, with no restart.
 * PostgreSQL only: PGlite runs inside the process and cannot be cut off.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseDeadConnections } from '../../server/db/dead-connections';
import { onPostgres } from '../support/database';
import { member, type Browser } from '../support/dashboard-sessions';
import { call } from '../support/http';
import { eventually } from '../support/outbox-events';
import { startServiceBehindWire, type WireCounter } from '../support/postgres-wire';
import type { TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';

describe.skipIf(!onPostgres)('PostgreSQL cut off: every edge answers 503 service_unavailable (PostgreSQL only: PGlite cannot be cut off)', () => {
  let behindWire: Awaited<ReturnType<typeof startServiceBehindWire>>;
  let wire: WireCounter;
  let service: TestService;
  let tenant: TestTenant;
  let owner: Browser;

  beforeAll(async () => {
    behindWire = await startServiceBehindWire();
    ({ service, wire } = behindWire);
    tenant = await createTenant(service);
    owner = await member(service, tenant.organizationId, 'owner');
  });
  afterAll(() => behindWire?.stop());

  it('answers 503 with Retry-After on /v1 and the operator API, one warning line per request, and serves again once PostgreSQL is back', async () => {
    const before = service.logs().length;
    wire.cut();

    const read = await call(service.url, 'GET', '/v1/payments?externalId=order-1', { key: tenant.apiKey });
    expect(read.status).toBe(503);
    expect(read.body).toEqual({ error: 'service_unavailable', message: expect.stringMatching(/cannot reach its database.*Retry-After/) });
    expect(read.headers.get('retry-after')).toBe('2');

    const operator = await fetch(`${service.url}/internal/trpc/payments.list?input=${encodeURIComponent(JSON.stringify({ environmentId: tenant.environmentId }))}`, {
      headers: { authorization: `Bearer ${service.adminToken}` },
    });
    expect(operator.status).toBe(503);
    expect(operator.headers.get('retry-after')).toBe('2');
    expect(await operator.json()).toEqual({ error: 'service_unavailable', message: expect.stringMatching(/temporarily unavailable/) });

    // The dashboard's session is read from the database before the call.
    const dashboard = await owner.call('payments.list', { environmentId: tenant.environmentId });
    expect(dashboard.status).toBe(503);
    expect(dashboard.body).toEqual({ error: 'service_unavailable', message: expect.stringMatching(/temporarily unavailable/) });

    const lines = service
      .logs()
      .slice(before)
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, any>);
    const requestLines = lines.filter((line) => line.req);
    expect(requestLines.map((line) => [line.level, line.res.statusCode, line.error])).toEqual([
      [40, 503, 'service_unavailable'],
      [40, 503, 'service_unavailable'],
      [40, 503, 'service_unavailable'],
    ]);
    expect(requestLines[0]!.database).toMatch(/^(connection_terminated|ECONNRESET|ECONNREFUSED)$/);
    // Outside the request lines, only the background jobs' one line each for the outage.
    const others = lines.filter((line) => !line.req && line.level >= 40).map((line) => line.msg as string);
    expect(others.filter((msg) => !/^(webhook dispatcher|event pruning) cannot reach the database \(\w+\); backing off until it answers$/.test(msg))).toEqual([]);
    expect(new Set(others).size).toBe(others.length);
    expect(JSON.stringify(lines)).not.toContain('    at ');

    wire.restore();
    const restoredAt = Date.now();
    // Served from the database again: no payment has this externalId.
    await eventually(async () => (await call(service.url, 'GET', '/v1/payments?externalId=order-1', { key: tenant.apiKey })).status === 404, 5_000, 'a read served again');
    expect(Date.now() - restoredAt).toBeLessThan(5_000);
    expect((await owner.call('payments.list', { environmentId: tenant.environmentId })).status).toBe(200);
  });

  it('gives a connection that died while checked out back to the pool, even when its holder never does (as a failed BEGIN leaves it)', async () => {
    const pool = new pg.Pool({ connectionString: process.env.TEST_DATABASE_URL, max: 1, connectionTimeoutMillis: 4_000 });
    releaseDeadConnections(pool);
    pool.on('error', () => {});
    const held = await pool.connect();
    held.on('error', () => {});
    const { rows } = await held.query<{ pid: number }>('select pg_backend_pid() as pid');
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    await admin.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
    await admin.end();
    // The pool's one connection is still "checked out" by a holder that will never give it back: the next checkout gets a fresh one.
    const next = await pool.connect();
    expect((await next.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }]);
    next.release();
    held.release();
    await pool.end();
  });
});
