/**
 * The database a test service runs on: embedded in-memory PGlite by default;
 * with TEST_DATABASE_URL set, a freshly created, uniquely named PostgreSQL
 * database that is dropped afterwards, so runs never see each other's data.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Config } from '../../server/config';

export const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

export interface TestDatabase {
  config: Config['database'];
  drop(): Promise<void>;
}

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Drops a test database once the stopped service's connections have closed by
 * themselves; forcing it earlier kills a connection that is still closing,
 * which its driver reports as an uncaught error. Forced only as a last resort.
 */
async function dropWhenIdle(name: string): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      await adminQuery(`DROP DATABASE IF EXISTS "${name}"`);
      return;
    } catch (error) {
      // 55006: the database is still being accessed by other users.
      if ((error as { code?: string }).code !== '55006') throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}

export async function createTestDatabase(): Promise<TestDatabase> {
  if (!onPostgres) return { config: { kind: 'pglite', dataDir: null }, drop: async () => {} };
  const name = `payments_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE "${name}"`);
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  return {
    config: { kind: 'postgresql', url: url.toString() },
    drop: () => dropWhenIdle(name),
  };
}

/**
 * A database two consecutive (or parallel) service instances can share: on
 * PGlite a folder on disk, on PostgreSQL a fresh database. `drop` removes it.
 */
export async function createSharedDatabase(): Promise<TestDatabase> {
  if (onPostgres) return createTestDatabase();
  const folder = mkdtempSync(join(tmpdir(), 'payments-shared-db-'));
  return { config: { kind: 'pglite', dataDir: join(folder, 'pg') }, drop: async () => rmSync(folder, { recursive: true, force: true }) };
}
