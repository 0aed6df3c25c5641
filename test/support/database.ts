/**
 * The database a test service runs on: embedded in-memory PGlite by default;
 * with TEST_DATABASE_URL set, a freshly created, uniquely named PostgreSQL
 * database that is dropped afterwards, so runs never see each other's data.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
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

/**
 * Where global-setup leaves, for the PostgreSQL pass, the name of a database
 * with every migration applied, to copy (unset on PGlite, or outside vitest).
 */
export const POSTGRES_TEMPLATE_ENV = 'PAYMENTS_TEST_POSTGRES_TEMPLATE';

const testDatabaseUrl = (name: string): string => {
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  return url.toString();
};

/**
 * CREATE DATABASE, as a copy of the migrated template when asked and there is
 * one. PostgreSQL refuses the copy while a session is still on the template
 * (55006: the one that migrated it may take a moment to go): tried again,
 * then an empty database, which the service migrates itself as before.
 */
async function createDatabase(name: string, copyMigrated: boolean): Promise<void> {
  const template = copyMigrated ? process.env[POSTGRES_TEMPLATE_ENV] : undefined;
  if (template) {
    for (let attempt = 0; attempt < 20; attempt++) {
      try {
        await adminQuery(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
        return;
      } catch (error) {
        if ((error as { code?: string }).code !== '55006') throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }
  await adminQuery(`CREATE DATABASE "${name}"`);
}

/**
 * `migrated`: on PostgreSQL, a copy of the run's migrated template (global-setup)
 * when there is one, so the service finds nothing to migrate; by default an
 * empty database, migrated by whatever opens it first.
 */
export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  if (!onPostgres) return { config: { kind: 'pglite', dataDir: null }, drop: async () => {} };
  const name = `payments_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await createDatabase(name, options.migrated ?? false);
  return {
    config: { kind: 'postgresql', url: testDatabaseUrl(name) },
    drop: () => dropWhenIdle(name),
  };
}

/** Creates and migrates the PostgreSQL database `createTestDatabase({ migrated: true })` copies; `drop` removes it. */
export async function createMigratedPostgresTemplate(): Promise<{ name: string; drop(): Promise<void> }> {
  const { openDatabase } = await import('../../server/db/orm');
  const { ENTITIES } = await import('../../server/domain/entities');
  const name = `payments_template_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE "${name}"`);
  try {
    const db = await openDatabase({ kind: 'postgresql', url: testDatabaseUrl(name) }, ENTITIES);
    await db.close();
  } catch (error) {
    await dropWhenIdle(name);
    throw error;
  }
  return { name, drop: () => dropWhenIdle(name) };
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

/**
 * Where global-setup leaves, for the PGlite pass, a dump of an in-memory
 * database with every migration applied (unset on PostgreSQL, or outside vitest).
 */
export const PGLITE_TEMPLATE_ENV = 'PAYMENTS_TEST_PGLITE_TEMPLATE';

interface TemplateSeam {
  store: AsyncLocalStorage<Blob>;
  file: string | null;
  dump: Blob | null;
}

// On globalThis: the wrapped PGlite.create outlives this module when a worker re-imports it for the next file.
const SEAM = Symbol.for('payments.test.pgliteTemplate');
const seam = ((globalThis as Record<symbol, TemplateSeam | undefined>)[SEAM] ??= { store: new AsyncLocalStorage<Blob>(), file: null, dump: null });

function migratedTemplate(): Blob | null {
  const file = process.env[PGLITE_TEMPLATE_ENV];
  if (!file) return null;
  if (seam.file !== file) {
    seam.dump = new Blob([readFileSync(file)]);
    seam.file = file;
  }
  return seam.dump;
}

/** PGlite.create as this seam calls it: (dataDir?, options?) or (options?). */
type Create = ((this: unknown, dataDirOrOptions?: unknown, options?: unknown) => Promise<PGlite>) & { [WRAPPED]?: true };
const WRAPPED = Symbol.for('payments.test.pgliteCreateWrapped');

/**
 * A fresh in-memory PGlite runs initdb and then the service runs all the
 * migrations: seconds of CPU per service start, most of the PGlite pass's set-up.
 * Inside `run`, an in-memory PGlite the service opens loads the migrated
 * template instead (the same cluster files initdb and the migrations would
 * leave; the migrator then finds nothing to apply). Only the service's own
 * in-memory database: anything else, or no template, starts as before.
 */
export async function withMigratedTemplate<T>(run: () => Promise<T>): Promise<T> {
  const template = migratedTemplate();
  if (!template) return run();
  const create = PGlite.create as unknown as Create;
  if (!create[WRAPPED]) {
    const wrapped: Create = function (this: unknown, dataDirOrOptions?: unknown, options?: unknown) {
      const dump = seam.store.getStore();
      if (dump && typeof dataDirOrOptions === 'object' && dataDirOrOptions !== null) {
        const given = dataDirOrOptions as { dataDir?: string; loadDataDir?: unknown };
        const inMemory = !given.dataDir || given.dataDir.startsWith('memory:');
        if (inMemory && !given.loadDataDir) return create.call(this, { ...given, loadDataDir: dump }, options);
      }
      return create.call(this, dataDirOrOptions, options);
    };
    wrapped[WRAPPED] = true;
    (PGlite as unknown as { create: Create }).create = wrapped;
  }
  return seam.store.run(template, run);
}

/** Writes the dump `withMigratedTemplate` loads: an in-memory database opened and migrated as a service does. */
export async function writeMigratedTemplate(file: string): Promise<void> {
  const { openDatabase } = await import('../../server/db/orm');
  const { ENTITIES } = await import('../../server/domain/entities');
  const { writeFileSync } = await import('node:fs');
  const db = await openDatabase({ kind: 'pglite', dataDir: null }, ENTITIES);
  try {
    const native = await (db.root.getConnection() as unknown as { getNativeClient(): Promise<PGlite> }).getNativeClient();
    const dump = await native.dumpDataDir('none');
    writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  } finally {
    await db.close();
  }
}
