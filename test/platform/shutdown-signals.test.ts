/**
 * The service process told to stop (server/main.ts): on SIGTERM it drains,
 * `/readyz` answering `draining` while everything else is still served, each
 * answer saying `Connection: close`; a second signal ends it at once instead
 * of waiting for the drain. (test/platform/rolling-restart.test.ts covers a
 * whole rolling restart behind a balancer.)
 */
import { Agent, get } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { eventually } from '../support/outbox-events';
import { exitWithin, startServiceProcess, type ServiceProcess } from '../support/service-process';

/** Keep-alive, as a balancer's pool: the service says `keep-alive` unless it wants the connection gone. */
const pool = new Agent({ keepAlive: true });

/** One request: status, the Connection header, the JSON body. */
const ask = (url: string) =>
  new Promise<{ status: number; connection: string | undefined; body: any }>((resolve, reject) => {
    get(url, { agent: pool }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body: JSON.parse(Buffer.concat(chunks).toString() || 'null') }));
    }).on('error', reject);
  });

describe('a service process stopped by signals', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'payments-signals-'));
  let database: TestDatabase | undefined;
  let node: ServiceProcess | undefined;
  afterAll(async () => {
    if (node && node.child.exitCode === null) node.child.kill('SIGKILL');
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
    pool.destroy();
  });

  it('drains on SIGTERM, still serving with Connection: close, and exits at once on a second signal', async () => {
    database = await createTestDatabase({ migrated: true });
    const env: Record<string, string> = { DATA_DIR: dataDir, LOG_FORMAT: 'json', SEED_DEMO: 'false', SHUTDOWN_DRAIN_MS: '60000' };
    if (database.config.kind === 'postgresql') env.DATABASE_URL = database.config.url;
    node = await startServiceProcess(env, 120_000);
    expect(await ask(`${node.url}/readyz`)).toMatchObject({ status: 200, connection: 'keep-alive', body: { status: 'ready' } });

    node.child.kill('SIGTERM');
    const draining = await eventually(async () => {
      const answer = await ask(`${node!.url}/readyz`);
      return answer.status === 503 && answer;
    }, 10_000, '/readyz draining');
    expect(draining.body).toEqual({ status: 'draining' });
    const health = await ask(`${node.url}/v1/health`);
    expect(health).toMatchObject({ status: 200, connection: 'close' });

    // A second signal does not wait out the 60 s drain.
    const secondAt = Date.now();
    node.child.kill('SIGINT');
    expect(await exitWithin(node.child, 10_000, node.output)).toBe(1);
    expect(Date.now() - secondAt).toBeLessThan(10_000);
  }, 180_000);
});
