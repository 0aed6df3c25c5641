import '../../server/runtime/require-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onPostgres, PGLITE_TEMPLATE_ENV, writeMigratedTemplate } from './database';

/**
 * On the PGlite pass: one migrated in-memory database, dumped once per run,
 * which every test service loads instead of running initdb and the
 * migrations again (see withMigratedTemplate). Made from this checkout's
 * migrations each run, so it never lags behind them. The test workers,
 * started after this, inherit the variable naming it.
 */
export default async function setup(): Promise<(() => void) | void> {
  if (onPostgres || process.env[PGLITE_TEMPLATE_ENV]) return;
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
