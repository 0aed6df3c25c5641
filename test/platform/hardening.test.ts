/**
 * What an attacker or a careless cache could use, closed: database errors
 * logged without the statement's values, out-of-range numbers refused at the
 * field, the browser headers of every page, no cache of API answers, slow
 * clients cut off, and the embedded database's folder private.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { claimDataFolder } from '../../server/runtime/startup';
import { createSharedDatabase, onPostgres } from '../support/database';
import { call } from '../support/http';
import { startTestService, type TestService } from '../support/service';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ env: { HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_REQUEST_TIMEOUT_MS: '2000' } });
});
afterAll(async () => service?.stop());

const operatorCall = (procedure: string, input: unknown) =>
  call(service.url, 'POST', `/internal/trpc/${procedure}`, { body: input, headers: { authorization: `Bearer ${service.config.adminToken}` } });

describe('errors and numbers', () => {
  it('logs a failed statement without its values, on this database', async () => {
    const marker = `secret-${randomBytes(6).toString('hex')}`;
    const error = await service.services.db
      .fork()
      .getConnection()
      .execute(`insert into monthly_usage (organization_id, period, transactions) values (?, '2026-11', ?)`, [marker, `${marker}-count`])
      .then(
        () => null,
        (failure: unknown) => failure,
      );
    expect(error).not.toBeNull();
    service.services.log.error({ err: error }, 'unexpected failure');
    const line = service.logs().split('\n').find((l) => l.includes('"unexpected failure"'))!;
    expect(JSON.parse(line).err).toMatchObject({ code: '22P02', message: expect.stringMatching(/^invalid input syntax for type integer/) });
    expect(service.logs()).not.toContain(marker);
  });

  it('answers a monthly quota beyond a 32-bit integer with 400 at the field, not 500', async () => {
    const organization = await service.admin.organizations.create({ name: 'Big plans' });
    const reply = await operatorCall('organizations.setBilling', { organizationId: organization.id, monthlyTxLimit: 2 ** 31 + 5 });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: 'invalid_input', issues: [{ path: ['monthlyTxLimit'] }] });
    expect((await operatorCall('organizations.create', { name: 'Bigger', monthlyTxLimit: 2 ** 31 })).status).toBe(400);
    expect((await operatorCall('organizations.setBilling', { organizationId: organization.id, monthlyTxLimit: 2 ** 31 - 1 })).status).toBe(200);
  });
});

describe('headers', () => {
  it('every HTML page: nosniff, never framed, no referrer', async () => {
    for (const path of ['/docs', '/dashboard/']) {
      const reply = await call(service.url, 'GET', path);
      expect(reply.headers.get('content-type'), path).toMatch(/text\/html/);
      expect(reply.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(reply.headers.get('x-frame-options'), path).toBe('DENY');
      expect(reply.headers.get('content-security-policy'), path).toMatch(/frame-ancestors 'none'/);
      expect(reply.headers.get('referrer-policy'), path).toBe('no-referrer');
    }
  });

  it('no cache keeps an API answer, success or error', async () => {
    const answers = [
      await call(service.url, 'GET', '/v1/health'),
      await call(service.url, 'GET', '/v1/payments/pay_x'),
      await call(service.url, 'GET', '/internal/trpc/auth.session'),
      await operatorCall('organizations.list', undefined),
    ];
    for (const reply of answers) expect(reply.headers.get('cache-control')).toBe('no-store');
  });

  it('HSTS only when the public address is HTTPS', async () => {
    expect((await call(service.url, 'GET', '/v1/health')).headers.get('strict-transport-security')).toBeNull();
    const https = await startTestService({ env: { PUBLIC_BASE_URL: 'https://payments.example.com' } });
    try {
      for (const path of ['/v1/health', '/docs']) expect((await call(https.url, 'GET', path)).headers.get('strict-transport-security')).toBe('max-age=31536000');
    } finally {
      await https.stop();
    }
  });
});

/** Resolves with the milliseconds until the server closes the connection. */
function closedAfter(socket: Socket, started: number): Promise<number> {
  return new Promise((resolve) => {
    socket.on('error', () => {});
    socket.on('close', () => resolve(Date.now() - started));
    socket.resume(); // read the 408, so the server's end of the connection closes ours
  });
}

describe('slow clients', () => {
  it('cuts a client that trickles its headers once HTTP_HEADERS_TIMEOUT_MS is past', async () => {
    const { port } = new URL(service.url);
    const socket = connect(Number(port), '127.0.0.1');
    const started = Date.now();
    const closed = closedAfter(socket, started);
    socket.write('GET /v1/health HTTP/1.1\r\nHost: x\r\n');
    const drip = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 200);
    const after = await closed;
    clearInterval(drip);
    // The deadline is 1 s; Node checks it every second: well within 8 s even on a busy machine.
    expect(after).toBeLessThan(8_000);
  });

  it('cuts a client that trickles its body once HTTP_REQUEST_TIMEOUT_MS is past', async () => {
    const { port } = new URL(service.url);
    const socket = connect(Number(port), '127.0.0.1');
    const started = Date.now();
    const closed = closedAfter(socket, started);
    socket.write('POST /v1/payments HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{');
    const drip = setInterval(() => socket.writable && socket.write(' '), 200);
    const after = await closed;
    clearInterval(drip);
    expect(after).toBeGreaterThanOrEqual(1_500);
    expect(after).toBeLessThan(8_000);
  });
});

describe.runIf(!onPostgres)('the embedded database folder', () => {
  it('is private to its owner, and tightened when it was not', async () => {
    const database = await createSharedDatabase();
    const folder = database.config.kind === 'pglite' ? database.config.dataDir! : '';
    mkdirSync(folder, { recursive: true, mode: 0o755 });
    chmodSync(folder, 0o755);
    const local = await startTestService({ database });
    try {
      expect(statSync(folder).mode & 0o777).toBe(0o700);
    } finally {
      await local.stop();
      await database.drop();
    }
    const dataDir = mkdtempSync(join(tmpdir(), 'payments-private-'));
    try {
      chmodSync(dataDir, 0o755);
      claimDataFolder(loadConfig({ DATA_DIR: dataDir })).release();
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
