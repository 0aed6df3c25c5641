/**
 * Liveness and readiness for a load balancer (http/probes.ts): `/readyz`
 * follows the database (Redis is reported, not required), answers promptly when
 * PostgreSQL is gone and recovers when it returns; `/livez` and the
 * contract's `/v1/health` do not depend on storage.
 */
import express from 'express';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probes, type Readiness } from '../../server/http/probes';
import { onPostgres } from '../support/database';
import { startServiceBehindWire, type WireCounter } from '../support/postgres-wire';
import { startTestService, type TestService } from '../support/service';

const get = async (url: string) => {
  const response = await fetch(url);
  return { status: response.status, cacheControl: response.headers.get('cache-control'), body: (await response.json()) as Record<string, unknown> };
};

/** Asks until the probe answers `status` (a node is not ready until its connections are up), for a few seconds at most. */
async function eventually(url: string, status: number) {
  let answer = await get(url);
  for (let attempt = 0; attempt < 50 && answer.status !== status; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    answer = await get(url);
  }
  return answer;
}

describe('probes on a running service', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service?.stop());

  it('is alive and ready, with each check named, and never cached', async () => {
    expect(await get(`${service.url}/livez`)).toEqual({ status: 200, cacheControl: 'no-store', body: { status: 'alive' } });
    const ready = await eventually(`${service.url}/readyz`, 200);
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({
      status: 'ready',
      checks: { database: 'ok', redis: service.config.redis ? 'ok' : 'not_configured' },
    });
  });
});

describe.skipIf(!onPostgres)('readiness when PostgreSQL goes away', () => {
  let behindWire: Awaited<ReturnType<typeof startServiceBehindWire>>;
  let wire: WireCounter;
  let service: TestService;

  beforeAll(async () => {
    behindWire = await startServiceBehindWire();
    ({ service, wire } = behindWire);
  });
  afterAll(() => behindWire?.stop());

  it('answers 503 within a second of the database becoming unreachable, and 200 again once it is back; health and liveness stay up', async () => {
    expect((await eventually(`${service.url}/readyz`, 200)).status).toBe(200);
    wire.cut();
    const started = Date.now();
    const down = await get(`${service.url}/readyz`);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ status: 'not_ready', checks: { database: 'unreachable' } });
    expect((await get(`${service.url}/v1/health`)).status).toBe(200);
    expect((await get(`${service.url}/livez`)).status).toBe(200);

    wire.restore();
    expect((await eventually(`${service.url}/readyz`, 200)).body).toMatchObject({ status: 'ready', checks: { database: 'ok' } });
  });
});

describe('readiness checks', () => {
  /** The probes on a bare app, with checks the test controls. */
  async function probed(readiness: Readiness) {
    const app = express();
    probes(app, readiness);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(resolve)) };
  }

  it('stays ready while Redis is unreachable, and says so: one Redis behind every node must not empty the balancer', async () => {
    const app = await probed({ draining: () => false, database: async () => 1, redis: () => Promise.reject(new Error('connection refused')) });
    expect(await get(`${app.url}/readyz`)).toMatchObject({ status: 200, body: { status: 'ready', checks: { database: 'ok', redis: 'unreachable' } } });
    await app.close();
  });

  it('is not ready while draining, whatever the stores say', async () => {
    const app = await probed({ draining: () => true, database: async () => 1, redis: null });
    expect(await get(`${app.url}/readyz`)).toMatchObject({ status: 503, body: { status: 'draining' } });
    await app.close();
  });

  it('counts a check that hangs as unreachable, and never starts another while it hangs, however often it is asked', async () => {
    let started = 0;
    const hanging = () => {
      started++;
      return new Promise(() => {});
    };
    const app = await probed({ draining: () => false, database: hanging, redis: async () => 'PONG' });
    const answers = await Promise.all(Array.from({ length: 5 }, () => get(`${app.url}/readyz`)));
    expect(answers.every((answer) => answer.status === 503 && (answer.body.checks as Record<string, string>).database === 'unreachable')).toBe(true);
    expect(answers.every((answer) => (answer.body.checks as Record<string, string>).redis === 'ok')).toBe(true);
    expect((await get(`${app.url}/readyz`)).status).toBe(503);
    expect(started).toBe(1);
    await app.close();
  });
});
