import '../../server/runtime/require-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMigratedPostgresTemplate, onPostgres, PGLITE_TEMPLATE_ENV, POSTGRES_TEMPLATE_ENV, writeMigratedTemplate } from './database';

/**
 * On the PGlite pass: one migrated in-memory database, dumped once per run,
 * which every test service loads instead of running initdb and the
 * migrations again (see withMigratedTemplate). Made from this checkout's
 * migrations each run, so it never lags behind them. The test workers,
 * started after this, inherit the variable naming it.
 */
export default async function setup(): Promise<(() => void | Promise<void>) | void> {
  if (onPostgres) return postgresTemplate();
  if (process.env[PGLITE_TEMPLATE_ENV]) return;
  const folder = mkdtempSync(join(tmpdir(), 'payments-pglite-template-'));
  const file = join(folder, 'migrated.tar');
  try {
    await writeMigratedTemplate(file);
  } catch (error) {
    // Without it every service migrates its own database, as before: slower, not different; the tests say what is broken.
    console.warn(`no migrated PGlite template (each test service migrates its own database): ${String(error)}`);
    rmSync(folder, { recursive: true, force: true });
    return;
  }
  process.env[PGLITE_TEMPLATE_ENV] = file;
  return () => {
    delete process.env[PGLITE_TEMPLATE_ENV];
    rmSync(folder, { recursive: true, force: true });
  };
}

/** On the PostgreSQL pass: a migrated database each test service's own database is copied from (CREATE DATABASE … TEMPLATE). */
async function postgresTemplate(): Promise<(() => Promise<void>) | void> {
  if (process.env[POSTGRES_TEMPLATE_ENV]) return;
  let template: Awaited<ReturnType<typeof createMigratedPostgresTemplate>>;
  try {
    template = await createMigratedPostgresTemplate();
  } catch (error) {
    console.warn(`no migrated PostgreSQL template (each test service migrates its own database): ${String(error)}`);
    return;
  }
  process.env[POSTGRES_TEMPLATE_ENV] = template.name;
  return async () => {
    delete process.env[POSTGRES_TEMPLATE_ENV];
    await template.drop();
  };
}
