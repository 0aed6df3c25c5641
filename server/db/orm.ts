/**
 * Opens the database the configuration names (PostgreSQL or embedded PGlite)
 * with the same entities and migrations, and brings the schema up to date by
 * running the committed migrations (never by diffing the schema at boot).
 */
import { ensurePrivateFolder } from '../runtime/private-folder';
import type { AbstractSqlDriver, BasePostgreSqlEntityManager } from '@mikro-orm/sql';
import { MikroORM as PostgreSqlMikroORM } from '@mikro-orm/postgresql';
import { MikroORM as PgliteMikroORM } from '@mikro-orm/pglite';
import { Migrator } from '@mikro-orm/migrations';
import type { Config } from '../config';
import type { EntitySchema } from '@mikro-orm/core';
import { MIGRATIONS } from './migrations';
import { releaseDeadConnections } from './dead-connections';
import { PGLITE_EXTENSIONS } from './pglite-extensions';
import { parsePostgresUrl } from './postgres-url';
import { sessionTargetingClient } from './session-target';

export type EntityManager = BasePostgreSqlEntityManager<AbstractSqlDriver>;

export interface Database {
  kind: Config['database']['kind'];
  /** The root EntityManager: never used directly, fork one per unit of work. */
  root: EntityManager;
  fork(): EntityManager;
  /**
   * The one way to the read replicas (DATABASE_REPLICA_URLS): an EntityManager for operator and dashboard reads that
   * may be a moment behind (lists, search, the overview, exports), forked from the replicas' ORM. Never for a write,
   * for a read that decides money (creates, state changes, idempotency, /v1, webhook ingestion, reconciliation) or
   * one that must see its own writes: those use fork(), always the primary. Without replicas (PGlite included) it
   * is `primary`, the caller's own EntityManager, so nothing changes there.
   */
  forReads(primary: EntityManager): EntityManager;
  close(): Promise<void>;
}

const baseOptions = {
  extensions: [Migrator],
  migrations: {
    migrationsList: MIGRATIONS,
    path: 'server/db/migrations',
    emit: 'ts' as const,
    snapshot: false,
    transactional: true,
    allOrNothing: true,
  },
  // Entities are defined in code; nothing to discover from the file system.
  discovery: { warnWhenNoEntities: true },
  allowGlobalContext: false,
  debug: false,
};

/**
 * How long a request waits for a pooled PostgreSQL connection (a new one's
 * TCP and start-up included) before it fails. pg's default is to wait for
 * ever: with the database's host silent (a network cut that drops packets
 * rather than refusing them), every request would hang. Failing after this
 * long answers 503 `service_unavailable` (db/unreachable.ts); the pool opens
 * fresh connections on the next request once the database answers, so it
 * recovers with no restart.
 */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * How MikroORM reaches one PostgreSQL URL. Several hosts or a target_session_attrs (a failover pair): MikroORM reads
 * the first host's URL, and each pool connection picks its server itself (db/session-target.ts); a plain URL goes
 * to `pg` as it is.
 */
function postgresConnection(url: string) {
  const target = parsePostgresUrl(url);
  if (!target) throw new Error('not a postgres:// URL');
  const chooses = target.hosts.length > 1 || target.targetSessionAttrs !== 'any';
  return {
    clientUrl: chooses ? target.urlFor(target.hosts[0]!) : url,
    driverOptions: { connectionTimeoutMillis: CONNECT_TIMEOUT_MS, onPoolCreated: releaseDeadConnections, ...(chooses ? { Client: sessionTargetingClient(target) } : {}) },
  };
}

/**
 * The ORM operator reads go through when DATABASE_REPLICA_URLS names read replicas: MikroORM's own replica support
 * with preferReadReplicas (Database.forReads), so its finds and query builders read from a replica (picked at random per query) and
 * anything that writes, or runs in a transaction, goes to the primary. The main ORM keeps preferReadReplicas off
 * and has no replicas: whatever forks it (the money path) never reads a replica, whatever a query forgets to say.
 */
async function openReplicaReads(database: Extract<Config['database'], { kind: 'postgresql' }>, entities: readonly EntitySchema[], logger: (message: string) => void) {
  const orm = await PostgreSqlMikroORM.init({
    ...baseOptions,
    entities: [...entities],
    logger,
    ...postgresConnection(database.url),
    // Its primary pool serves only what an operator read writes (nothing, by design): kept small.
    pool: { min: 0, max: 2 },
    preferReadReplicas: true,
    replicas: database.replicaUrls!.map((url, index) => ({ name: `replica-${index + 1}`, pool: { min: 0, max: 10 }, ...postgresConnection(url) })),
  });
  return { em: orm.em as unknown as EntityManager, close: () => orm.close(true) };
}

interface OpenedOrm {
  em: EntityManager;
  migrate(): Promise<unknown>;
  close(): Promise<void>;
}

async function openOrm(database: Config['database'], entities: readonly EntitySchema[], logger: (message: string) => void, create: boolean): Promise<OpenedOrm> {
  const options = { ...baseOptions, entities: [...entities], logger };
  if (database.kind === 'postgresql') {
    // A missing database is an error unless creating it was asked for (DATABASE_CREATE): a typo must not create a new one.
    // The migrator creates a missing database on its own, so the database is asked first (PostgreSQL answers 3D000).
    const orm = await PostgreSqlMikroORM.init({ ...options, ...postgresConnection(database.url), ensureDatabase: create });
    if (!create) await orm.em.getConnection().execute('select 1').catch(async (error: unknown) => {
      await orm.close(true);
      throw error;
    });
    return { em: orm.em as unknown as EntityManager, migrate: () => orm.migrator.up(), close: () => orm.close(true) };
  }
  if (database.dataDir) ensurePrivateFolder(database.dataDir);
  const orm = await PgliteMikroORM.init({ ...options, dbName: database.dataDir ?? 'memory://', driverOptions: { extensions: PGLITE_EXTENSIONS } });
  return { em: orm.em as unknown as EntityManager, migrate: () => orm.migrator.up(), close: () => orm.close(true) };
}

/** `entities`: the whole model (domain/entities.ts); storage does not know which tables carry rules. */
export async function openDatabase(
  database: Config['database'],
  entities: readonly EntitySchema[],
  options: { migrate?: boolean; logger?: (message: string) => void; create?: boolean } = {},
): Promise<Database> {
  // MikroORM's own messages (migrations applied) go to the service log, not to stdout.
  const logger = options.logger ?? (() => {});
  const orm = await openOrm(database, entities, logger, options.create ?? false);
  if (options.migrate !== false) await orm.migrate();
  const reads = database.kind === 'postgresql' && database.replicaUrls?.length ? await openReplicaReads(database, entities, logger).catch(async (error: unknown) => {
    await orm.close();
    throw error;
  }) : null;
  return {
    kind: database.kind,
    root: orm.em,
    fork: () => orm.em.fork(),
    forReads: (primary) => (reads ? reads.em.fork() : primary),
    close: async () => {
      await reads?.close();
      await orm.close();
    },
  };
}
