/**
 * A start that cannot succeed, as a newcomer meets it: the real service
 * process (`npm start`'s server/main.ts) with one thing wrong. Each case ends
 * with exactly one line on stderr that names the variable or the resource and
 * says what to do, no stack and no source path, and a non-zero exit; nothing
 * is created on the way (no database, no embedded database files).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { onPostgres } from '../support/database';
import { call } from '../support/http';
import { exitWithin, listeningLine, spawnService, startServiceProcess } from '../support/service-process';

const scratch = mkdtempSync(join(tmpdir(), 'payments-startup-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let folders = 0;
/** A fresh DATA_DIR (not created yet), so no case writes into the repository's ./data. */
const dataDir = () => join(scratch, `data-${++folders}`);

interface Failed {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Starts the service with these variables and waits for it to give up. */
function failedStart(env: Record<string, string>): Promise<Failed> {
  const child = spawnService({ LOG_LEVEL: 'info', ...env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return exitWithin(child, 45_000, () => stdout + stderr).then((code) => ({ code, stdout, stderr }));
}

/** One line naming the variable, no stack, no source file, a non-zero exit. */
function expectOneLine(failed: Failed, variable: string, says: RegExp): string {
  expect(failed.code, failed.stderr).not.toBe(0);
  expect(failed.code).not.toBeNull();
  const lines = failed.stderr.split('\n').filter((line) => line.trim() !== '');
  expect(lines, failed.stderr).toHaveLength(1);
  const [line] = lines as [string];
  expect(line.startsWith(variable), line).toBe(true);
  expect(line).toMatch(says);
  expect(failed.stderr).not.toMatch(/^\s+at /m);
  expect(failed.stderr).not.toMatch(/server\/|node_modules|\.ts\b|\.js:\d/);
  // Nothing else reached the database: no migration lines, no banner.
  expect(failed.stdout).not.toMatch(/migrator|listening on/);
  return line;
}

const listen = (server: Server, port = 0) =>
  new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
  });
const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

/** A port nothing listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await close(server);
  return port;
}

describe('a start that cannot succeed says why in one line', () => {
  it('PORT in use: stops before the embedded database is opened', async () => {
    const holder = createServer();
    const port = await listen(holder);
    try {
      const dir = dataDir();
      const failed = await failedStart({ PORT: String(port), DATA_DIR: dir });
      expectOneLine(failed, `PORT ${port}`, /already in use.*set PORT to a free port/);
      // The port is bound before the database: no embedded database files were made, and the data folder is not left locked.
      expect(existsSync(join(dir, 'pg'))).toBe(false);
      expect(existsSync(join(dir, 'service.lock'))).toBe(false);
    } finally {
      await close(holder);
    }
  }, 60_000);

  it('HOST that does not resolve', async () => {
    const failed = await failedStart({ PORT: '0', HOST: 'no-such-host.invalid', DATA_DIR: dataDir() });
    expectOneLine(failed, 'HOST no-such-host.invalid', /does not resolve.*set HOST/);
  }, 60_000);

  it('DATA_DIR below a regular file (ENOTDIR)', async () => {
    const file = join(scratch, 'a-file');
    writeFileSync(file, 'not a folder');
    const failed = await failedStart({ PORT: '0', DATA_DIR: join(file, 'data') });
    expectOneLine(failed, `DATA_DIR ${join(file, 'data')}`, /ENOTDIR.*set DATA_DIR/);
  }, 60_000);

  it('DATABASE_URL at a port where nothing listens', async () => {
    const port = await closedPort();
    const failed = await failedStart({ PORT: '0', DATA_DIR: dataDir(), DATABASE_URL: `postgres://postgres:secret-pw@127.0.0.1:${port}/payments` });
    const line = expectOneLine(failed, 'DATABASE_URL', new RegExp(`cannot connect to 127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\); is PostgreSQL running there\\?`));
    // The password is never printed.
    expect(line).not.toContain('secret-pw');
    expect(line).toContain('postgres://postgres:***@');
  }, 60_000);

  it('DATABASE_URL whose host does not resolve', async () => {
    const failed = await failedStart({ PORT: '0', DATA_DIR: dataDir(), DATABASE_URL: 'postgres://postgres@no-such-host.invalid:5432/payments' });
    expectOneLine(failed, 'DATABASE_URL', /cannot connect to no-such-host\.invalid:5432 \((ENOTFOUND|EAI_AGAIN)\)/);
  }, 60_000);

  it('a second start on the same DATA_DIR while the first runs: refused before it opens the database; the first keeps serving', async () => {
    const dir = dataDir();
    const first = await startServiceProcess({ DATA_DIR: dir });
    try {
      const failed = await failedStart({ PORT: '0', DATA_DIR: dir });
      expectOneLine(failed, `DATA_DIR ${dir}`, new RegExp(`in use by another service process \\(pid ${first.child.pid}\\); stop it, or set DATA_DIR`));
      expect((await call(first.url, 'GET', '/v1/health')).status).toBe(200);
    } finally {
      expect(await first.stop()).toBe(0);
    }
    // Stopped cleanly: the lock is gone and a new start works.
    expect(existsSync(join(dir, 'service.lock'))).toBe(false);
  }, 120_000);
});

describe.runIf(onPostgres)('DATABASE_URL on a reachable PostgreSQL', () => {
  const server = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://localhost');
  const urlFor = (database: string, user?: string) => {
    const url = new URL(server);
    url.pathname = `/${database}`;
    if (user) {
      url.username = user;
      url.password = 'not-the-password';
    }
    return url.toString();
  };
  async function databaseExists(name: string): Promise<boolean> {
    const client = new pg.Client({ connectionString: server.toString() });
    await client.connect();
    try {
      return (await client.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
    } finally {
      await client.end();
    }
  }
  async function dropDatabase(name: string): Promise<void> {
    const client = new pg.Client({ connectionString: server.toString() });
    await client.connect();
    try {
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    } finally {
      await client.end();
    }
  }

  it('an unknown user is refused: one line saying to check the user and password', async () => {
    const user = `no_such_role_${randomBytes(3).toString('hex')}`;
    const failed = await failedStart({ PORT: '0', DATA_DIR: dataDir(), DATABASE_URL: urlFor('postgres', user) });
    const line = expectOneLine(failed, 'DATABASE_URL', /refused the login .*check the user and password/);
    expect(line).not.toContain('not-the-password');
  }, 60_000);

  it('a database that does not exist is an error and is not created; DATABASE_CREATE=true creates it', async () => {
    const name = `payments_missing_${process.pid}_${randomBytes(3).toString('hex')}`;
    try {
      const failed = await failedStart({ PORT: '0', DATA_DIR: dataDir(), DATABASE_URL: urlFor(name) });
      expectOneLine(failed, 'DATABASE_URL', new RegExp(`names database "${name}", which does not exist .*createdb ${name}.*DATABASE_CREATE=true`));
      expect(await databaseExists(name)).toBe(false);

      // The documented flag, for local use: created, migrated, serving.
      const child = spawnService({ PORT: '0', LOG_LEVEL: 'warn', DATA_DIR: dataDir(), DATABASE_URL: urlFor(name), DATABASE_CREATE: 'true' });
      let output = '';
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`did not start:\n${output}`)), 45_000);
        const onData = (chunk: Buffer) => {
          output += chunk.toString();
          const found = listeningLine(output)?.url;
          if (found) {
            clearTimeout(timer);
            resolve(found);
          }
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        child.on('exit', (code) => reject(new Error(`exited with ${code}:\n${output}`)));
      });
      expect((await call(url, 'GET', '/v1/health')).status).toBe(200);
      expect(await databaseExists(name)).toBe(true);
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      await dropDatabase(name);
    }
  }, 120_000);
});
