/** A real service on an ephemeral port, on the test database, with its logs captured. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig, type Config } from '../../server/config';
import { operatorContext } from '../../server/operator/procedure';
import { operatorRouter } from '../../server/operator/router';
import { createLogger } from '../../server/runtime/logger';
import { startService, type RunningService } from '../../server/runtime/service';
import { randomToken } from '../../server/contract/ids';
import type { HostResolver } from '../../server/outbound/resolver';
import { createTestDatabase, withMigratedTemplate, type TestDatabase } from './database';

export interface TestService extends RunningService {
  config: Config;
  dataDir: string;
  /** Every log line the service wrote, as text. */
  logs(): string;
  /** The operator procedures, called in-process. */
  admin: ReturnType<typeof operatorRouter.createCaller>;
  stop(): Promise<void>;
}

export interface TestServiceOptions {
  env?: Record<string, string>;
  /** Reuse another service's database (two nodes behind one load balancer). */
  database?: TestDatabase;
  now?: () => Date;
  /** The webhook SSRF guard's DNS, replaced so tests control what names resolve to. */
  resolveHost?: HostResolver;
}

/**
 * On PostgreSQL the counters every node shares live in Redis (REDIS_URL), as
 * in production, under a key prefix of the test's own database: two nodes on
 * one database share counters, parallel test files never see each other's.
 */
export function sharedCounters(database: TestDatabase): Record<string, string> {
  if (database.config.kind !== 'postgresql' || !process.env.REDIS_URL) return {};
  return { REDIS_URL: process.env.REDIS_URL, REDIS_KEY_PREFIX: `test:${new URL(database.config.url).pathname.slice(1)}:` };
}

export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'payments-test-'));
  const ownDatabase = !options.database;
  // Its own database starts migrated (a copy of the run's template on PostgreSQL; see global-setup).
  const database = options.database ?? (await createTestDatabase({ migrated: true }));
  const config: Config = {
    ...loadConfig({
      NODE_ENV: 'test',
      PORT: '0',
      DATA_DIR: dataDir,
      ADMIN_TOKEN: `adm_${randomToken(40)}`,
      LOG_LEVEL: 'info',
      SEED_DEMO: 'false',
      ...sharedCounters(database),
      ...options.env,
    }),
    database: database.config,
  };
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const start = () => startService(config, createLogger(config.logLevel, sink), { now: options.now, resolveHost: options.resolveHost });
  // An in-memory PGlite starts from the run's migrated template (global-setup), not from initdb and every migration.
  const inMemory = config.database.kind === 'pglite' && config.database.dataDir === null;
  const service = await (inMemory ? withMigratedTemplate(start) : start());
  return {
    ...service,
    config,
    dataDir,
    logs: () => lines.join(''),
    admin: operatorRouter.createCaller(operatorContext(service.services)),
    async stop() {
      try {
        await service.close();
      } finally {
        if (ownDatabase) await database.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}

export interface TwoNodes {
  first: TestService;
  second: TestService;
  stop(): Promise<void>;
}

/**
 * Two service nodes of one deployment on one fresh PostgreSQL database: the
 * same master key (gateway credentials are sealed with it) and, through
 * REDIS_URL, the same shared counters, as behind a load balancer.
 */
export async function startTwoNodes(env: Record<string, string> = {}): Promise<TwoNodes> {
  if (!process.env.REDIS_URL) throw new Error('the PostgreSQL pass needs REDIS_URL (redis://127.0.0.1:6379): nodes share their counters there');
  const database = await createTestDatabase();
  const shared = { MASTER_KEY: randomBytes(32).toString('base64'), ...env };
  const first = await startTestService({ database, env: shared });
  const second = await startTestService({ database, env: shared });
  return {
    first,
    second,
    async stop() {
      await first.stop();
      await second.stop();
      await database.drop();
    },
  };
}
