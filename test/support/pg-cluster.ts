/**
 * A throwaway PostgreSQL primary and a streaming replica on this machine,
 * for the failover and read-replica tests: initdb into a temporary folder
 * (wal_level replica, replication allowed from 127.0.0.1 with trust), a
 * database for the service, then `pg_basebackup -R` of it into a second
 * folder started as a hot standby on another port, replicated synchronously
 * (a commit waits for the replica to have its WAL, not to replay it). Made once per test file
 * (seconds), removed afterwards; the machine's own PostgreSQL is not touched.
 *
 * PostgreSQL refuses to run as root, so as root (CI, this machine) every
 * command runs as the `postgres` user in folders it owns.
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { appendFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { unusedPort } from './service-process';

const run = promisify(execFile);

/** Where Debian and Ubuntu put PostgreSQL's server programs; PG_BIN overrides. */
const BIN = process.env.PG_BIN ?? ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'].find((dir) => existsSync(join(dir, 'initdb'))) ?? '';

/** Whether this machine can make a cluster (its PostgreSQL server programs are installed). */
export const canMakeCluster = BIN !== '';

const asRoot = process.getuid?.() === 0;

async function pgCommand(program: string, args: string[]): Promise<string> {
  const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(BIN, program), ...args]] : [join(BIN, program), args];
  try {
    const { stdout } = await run(file, argv, { cwd: tmpdir(), maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${program} ${args.join(' ')} failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}

export interface ClusterNode {
  port: number;
  dataDir: string;
  /** `postgres://postgres@127.0.0.1:<port>/<database>`. */
  url: string;
  /** One statement on a fresh connection; the rows. */
  query<T extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<T[]>;
  /** pg_ctl stop (`immediate`: as a crash, no shutdown checkpoint, clients cut). */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** pg_ctl promote, waiting until the server takes writes. */
  promote(): Promise<void>;
}

export interface PgCluster {
  database: string;
  primary: ClusterNode;
  replica: ClusterNode;
  /** Waits until the replica has replayed everything the primary has written so far. */
  caughtUp(timeoutMs?: number): Promise<void>;
  /** Stops whatever still runs and deletes both folders. */
  remove(): Promise<void>;
}

function node(port: number, dataDir: string, database: string): ClusterNode {
  const url = `postgres://postgres@127.0.0.1:${port}/${database}`;
  const query = async <T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
    client.on('error', () => {});
    await client.connect();
    try {
      return (await client.query<T>(sql, params)).rows;
    } finally {
      await client.end().catch(() => {});
    }
  };
  return {
    port,
    dataDir,
    url,
    query,
    stop: async (mode = 'fast') => {
      await pgCommand('pg_ctl', ['stop', '-D', dataDir, '-m', mode, '-w']);
    },
    promote: async () => {
      await pgCommand('pg_ctl', ['promote', '-D', dataDir, '-w']);
    },
  };
}

async function start(dataDir: string): Promise<void> {
  await pgCommand('pg_ctl', ['start', '-D', dataDir, '-l', join(dataDir, 'server.log'), '-w', '-t', '60']);
}

/**
 * A primary with `database` in it and its streaming replica, both running.
 * The primary keeps its WAL for the replica in a slot, so a paused replay never loses its place.
 */
export async function makePgCluster(database = 'payments'): Promise<PgCluster> {
  if (!canMakeCluster) throw new Error('PostgreSQL server programs (initdb, pg_ctl, pg_basebackup) not found; set PG_BIN');
  const root = mkdtempSync(join(tmpdir(), 'payments-pg-cluster-'));
  if (asRoot) chownSync(root, ...(await postgresIds()));
  const primaryDir = join(root, 'primary');
  const replicaDir = join(root, 'replica');
  const [primaryPort, replicaPort] = [await unusedPort(), await unusedPort()];
  const primary = node(primaryPort, primaryDir, database);
  const replica = node(replicaPort, replicaDir, database);
  const removeAll = async () => {
    for (const dir of [replicaDir, primaryDir]) {
      if (existsSync(join(dir, 'postmaster.pid'))) await pgCommand('pg_ctl', ['stop', '-D', dir, '-m', 'immediate', '-w']).catch(() => {});
    }
    rmSync(root, { recursive: true, force: true });
  };
  try {
    await pgCommand('initdb', ['-D', primaryDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale', 'C']);
    // Sockets in the cluster's own folder: the machine's /var/run/postgresql belongs to its own server.
    await appendFile(
      join(primaryDir, 'postgresql.conf'),
      [
        `port = ${primaryPort}`,
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${root}'`,
        'wal_level = replica',
        'max_wal_senders = 5',
        'max_replication_slots = 5',
        'hot_standby = on',
        // A test cluster: no crash of the machine to survive, only of the server.
        'fsync = off',
        'full_page_writes = off',
        'shared_buffers = 32MB',
        'max_connections = 60',
        '',
      ].join('\n'),
    );
    await writeFile(join(primaryDir, 'pg_hba.conf'), ['local all all trust', 'host all all 127.0.0.1/32 trust', 'host replication all 127.0.0.1/32 trust', ''].join('\n'));
    await start(primaryDir);
    const admin = node(primaryPort, primaryDir, 'postgres');
    await admin.query(`CREATE DATABASE "${database}"`);
    await admin.query("SELECT pg_create_physical_replication_slot('replica')");
    await pgCommand('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', replicaDir, '-R', '-X', 'stream', '-S', 'replica', '--checkpoint', 'fast', '--no-sync']);
    // The copied postgresql.conf names the primary's port; the last setting wins.
    await appendFile(join(replicaDir, 'postgresql.conf'), `port = ${replicaPort}\n`);
    await start(replicaDir);
    // Synchronous replication from here on: a commit is acknowledged once the replica has the WAL, so a failover
    // loses nothing acknowledged (asynchronous replication may lose the last commits; PostgreSQL's trade, not ours).
    // Set only now: with no standby yet, the commits above would have waited for one for ever.
    await admin.query("ALTER SYSTEM SET synchronous_standby_names = '*'");
    await admin.query('SELECT pg_reload_conf()');
    const cluster: PgCluster = {
      database,
      primary,
      replica,
      caughtUp: async (timeoutMs = 15_000) => {
        const lsn = (await primary.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn'))[0]!.lsn;
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const behind = (await replica.query<{ behind: boolean }>('select coalesce(pg_last_wal_replay_lsn() < $1::pg_lsn, true) as behind', [lsn]))[0]!.behind;
          if (!behind) return;
          if (Date.now() > deadline) throw new Error(`the replica did not replay up to ${lsn} within ${timeoutMs} ms`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      },
      remove: removeAll,
    };
    await cluster.caughtUp();
    return cluster;
  } catch (error) {
    await removeAll();
    throw error;
  }
}

async function postgresIds(): Promise<[number, number]> {
  const [{ stdout: uid }, { stdout: gid }] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return [Number(uid.trim()), Number(gid.trim())];
}
