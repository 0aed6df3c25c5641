/**
 * The first steps of a start, and how their failures read. Every failure a
 * newcomer or an operator can fix by changing a variable or freeing a
 * resource is one line that names it and says what to do; main.ts prints it
 * without a stack and exits non-zero.
 *
 * Order matters: the data folder is claimed and the port bound before the
 * embedded database is opened, so a second start on the same folder or port
 * stops before touching the database files.
 */
import { once } from 'node:events';
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { ensurePrivateFolder } from './private-folder';
import { createServer, type RequestListener, type Server } from 'node:http';
import { join, resolve } from 'node:path';
import type { Config } from '../config';
import { errorCodes, NETWORK_CODES } from '../db/unreachable';
import { parsePostgresUrl, redactPostgresUrl } from '../db/postgres-url';
import { STARTING_BODY } from '../http/error-bodies';

export class StartupError extends Error {
  override name = 'StartupError';
}

const LOCK_FILE = 'service.lock';

const FS_PROBLEMS: Record<string, string> = {
  ENOTDIR: 'a file is in the way of the folder',
  EEXIST: 'a file is in the way of the folder',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EISDIR: 'a folder is where a file should be',
  ENOENT: 'a folder above it cannot be created',
};

const dataDirProblem = (dataDir: string, error: unknown): StartupError | null => {
  const code = (error as { code?: string }).code ?? '';
  const problem = FS_PROBLEMS[code];
  if (!problem) return null;
  return new StartupError(`DATA_DIR ${dataDir} cannot be used (${code}: ${problem}); set DATA_DIR to a folder this user can write.`);
};

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

/**
 * The embedded database allows one process per folder: a lock file in
 * DATA_DIR holds the pid of the service using it. A lock left by a process
 * that is gone (killed, crashed) is taken over. Without an on-disk embedded
 * database there is nothing to protect, but DATA_DIR is still checked when
 * the local secrets live there.
 */
export function claimDataFolder(config: Config): { release(): void } {
  const usesFolder = config.database.kind === 'pglite' && config.database.dataDir !== null;
  const needsFolder = usesFolder || !config.adminToken || !config.masterKey;
  if (!needsFolder) return { release: () => {} };
  try {
    ensurePrivateFolder(config.dataDir);
  } catch (error) {
    throw dataDirProblem(config.dataDir, error) ?? error;
  }
  if (!usesFolder) return { release: () => {} };

  const lockPath = join(config.dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = openSync(lockPath, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      let released = false;
      return {
        release: () => {
          if (released) return;
          released = true;
          rmSync(lockPath, { force: true });
        },
      };
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST') throw dataDirProblem(config.dataDir, error) ?? error;
      const holder = Number.parseInt(readFileSync(lockPath, 'utf8'), 10);
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && processAlive(holder)) {
        throw new StartupError(
          `DATA_DIR ${config.dataDir} is in use by another service process (pid ${holder}); stop it, or set DATA_DIR to another folder.`,
        );
      }
      // Left by a process that is gone: take it over.
      rmSync(lockPath, { force: true });
    }
  }
  throw new StartupError(`DATA_DIR ${config.dataDir}: the lock file ${resolve(lockPath)} could not be taken; remove it if no service is running.`);
}

export interface BoundPort {
  server: Server;
  /** Hands the bound server to the application; until then requests get 503. */
  serve(handler: RequestListener): Server;
  close(): Promise<void>;
}

/** Binds HOST:PORT first, so a taken port or a bad HOST stops the start before the database is opened. */
export async function bindPort(config: Config): Promise<BoundPort> {
  let handler: RequestListener = (_req, res) => {
    res.statusCode = 503;
    res.setHeader('Retry-After', '1');
    res.setHeader('content-type', 'application/json');
    res.end(STARTING_BODY);
  };
  const { headersMs, requestMs, keepAliveMs } = config.httpTimeouts;
  const server = createServer(
    {
      headersTimeout: headersMs,
      requestTimeout: requestMs,
      keepAliveTimeout: keepAliveMs,
      // Node checks the two request timeouts on this interval (30 s by default): a slow client is cut within a second of its deadline.
      connectionsCheckingInterval: 1_000,
    },
    (req, res) => handler(req, res),
  );
  try {
    server.listen(config.port, config.host);
    await once(server, 'listening');
  } catch (error) {
    server.close();
    throw listenFailure(error, config) ?? error;
  }
  return {
    server,
    serve: (next) => {
      handler = next;
      return server;
    },
    close: () => new Promise((done) => server.close(() => done())),
  };
}

function listenFailure(error: unknown, config: Config): StartupError | null {
  const code = (error as { code?: string }).code;
  const where = `${config.host}:${config.port}`;
  switch (code) {
    case 'EADDRINUSE':
      return new StartupError(`PORT ${config.port} is already in use on ${config.host}; stop the other process, or set PORT to a free port (PORT=0 picks one).`);
    case 'EACCES':
      return new StartupError(`PORT ${config.port} on ${config.host} needs privileges this process does not have; set PORT to 1024 or above.`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return new StartupError(`HOST ${config.host} does not resolve to an address; set HOST to an address of this machine (127.0.0.1, or 0.0.0.0 for every interface).`);
    case 'EADDRNOTAVAIL':
      return new StartupError(`HOST ${config.host} is not an address of this machine (cannot listen on ${where}); set HOST to 127.0.0.1, or 0.0.0.0 for every interface.`);
    default:
      return null;
  }
}

/** The URL with its password hidden, for messages and logs. */
export const redactDatabaseUrl = (url: string): string => redactPostgresUrl(url);

/** A failure while opening the database, as one line naming DATABASE_URL (or DATA_DIR for the embedded one). */
export function databaseFailure(error: unknown, config: Config): Error {
  if (config.database.kind === 'pglite') {
    return config.database.dataDir ? (dataDirProblem(config.dataDir, error) ?? (error as Error)) : (error as Error);
  }
  const shown = redactDatabaseUrl(config.database.url);
  const target = parsePostgresUrl(config.database.url);
  const name = target?.database || '(default)';
  const server = target?.hosts.map((host) => `${host.host}:${host.port}`).join(',') ?? 'the server';
  const codes = errorCodes(error);
  const network = codes.find((code) => NETWORK_CODES.includes(code));
  if (codes.includes('3D000')) {
    return new StartupError(`DATABASE_URL ${shown} names database "${name}", which does not exist on ${server}; create it (createdb ${name}), or set DATABASE_CREATE=true to create it at start.`);
  }
  if (network) return new StartupError(`DATABASE_URL ${shown}: cannot connect to ${server} (${network}); is PostgreSQL running there?`);
  if (codes.includes('28P01') || codes.includes('28000')) {
    return new StartupError(`DATABASE_URL ${shown}: ${server} refused the login (${firstLine(error)}); check the user and password.`);
  }
  if (codes.some((code) => /^(08|53|57P0)/.test(code))) return new StartupError(`DATABASE_URL ${shown}: ${server} refused the connection (${firstLine(error)}).`);
  return error as Error;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // MikroORM prefixes the failed query; PostgreSQL's own reason is the last part.
  return (message.split(' - ').at(-1) ?? message).split('\n')[0]!.trim();
}

/** What main.ts prints for a failed start: the one line, or null for an unexpected failure (shown with its stack). */
export function explainStartupFailure(error: unknown, config: Config): string | null {
  if (error instanceof StartupError) return error.message;
  const path = (error as { path?: unknown }).path;
  if (typeof path === 'string' && resolve(path).startsWith(resolve(config.dataDir))) return dataDirProblem(config.dataDir, error)?.message ?? null;
  return null;
}
