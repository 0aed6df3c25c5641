/**
 * Pool connections that land on the right server of a multi-host
 * DATABASE_URL (db/postgres-url.ts), as libpq's target_session_attrs does:
 * with `read-write`, each new connection goes to a server that accepts
 * writes, so after a failover (the old primary gone, a standby promoted) new
 * connections reach the new primary by themselves.
 *
 * How: the pool is given this Client class. A new connection goes to the host
 * the last one found suitable; with none known, the hosts are tried in their
 * order with short-lived probe connections (one probe at a time for the whole
 * pool), and the first suitable one is kept. The connection itself is checked
 * too (one query) before the pool hands it out: a server that went away or
 * turned standby since is forgotten and the connection refused with SQLSTATE
 * 08001, which the service answers as "database unreachable" (503 with
 * Retry-After, decision 24); the next connection probes again. A `pg` Client
 * cannot connect twice, hence a probe rather than trying hosts in place.
 */
import pg from 'pg';
import type { PostgresHost, PostgresTarget, TargetSessionAttrs } from './postgres-url';

/** What a server says of itself, in one round trip (the session's default, as libpq's check). */
const ROLE_QUERY = "select pg_is_in_recovery() as standby, current_setting('transaction_read_only') = 'on' as read_only";

interface ServerRole {
  standby: boolean;
  readOnly: boolean;
}

/** Whether a server of that role is acceptable; prefer-standby takes a standby in its first pass and anything in its second. */
function suits(attrs: TargetSessionAttrs, role: ServerRole, pass: 1 | 2): boolean {
  switch (attrs) {
    case 'any':
      return true;
    case 'read-write':
      return !role.standby && !role.readOnly;
    case 'read-only':
      return role.standby || role.readOnly;
    case 'primary':
      return !role.standby;
    case 'standby':
      return role.standby;
    case 'prefer-standby':
      return pass === 2 || role.standby;
  }
}

/** No server of the list suits (all down, or none of the wanted kind): a class 08 SQLSTATE, "unable to establish a connection". */
export class NoSuitableServerError extends Error {
  override name = 'NoSuitableServerError';
  readonly code = '08001';
}

const hostName = (host: PostgresHost) => `${host.host}:${host.port}`;
/** An IPv6 address is bracketed in a URL, bare for a socket. */
const socketHost = (host: PostgresHost) => host.host.replace(/^\[(.*)\]$/, '$1');

async function roleOf(client: pg.Client): Promise<ServerRole> {
  const { rows } = await client.query<{ standby: boolean; read_only: boolean }>(ROLE_QUERY);
  return { standby: rows[0]!.standby, readOnly: rows[0]!.read_only };
}

/** One probe: connect, ask, close. The reason it does not suit, or null when it does. */
async function probe(options: pg.ClientConfig, host: PostgresHost, attrs: TargetSessionAttrs, pass: 1 | 2): Promise<string | null> {
  const client = new pg.Client({ ...options, host: socketHost(host), port: host.port, query_timeout: options.connectionTimeoutMillis });
  // A probe's connection may drop while it is open; its error is the probe's answer, not the process's.
  client.on('error', () => {});
  try {
    await client.connect();
    const role = await roleOf(client);
    return suits(attrs, role, pass) ? null : role.standby ? 'a standby' : 'read-only';
  } catch (error) {
    return (error as { code?: string }).code ?? (error as Error).message;
  } finally {
    await client.end().catch(() => {});
  }
}

/** A `pg` Client class for a pool whose connections choose among `target.hosts`. */
export function sessionTargetingClient(target: PostgresTarget): typeof pg.Client {
  const attrs = target.targetSessionAttrs;
  let known: PostgresHost | null = null;
  let probing: Promise<PostgresHost> | null = null;

  const findHost = async (options: pg.ClientConfig): Promise<PostgresHost> => {
    const reasons: string[] = [];
    for (const pass of attrs === 'prefer-standby' ? ([1, 2] as const) : ([1] as const)) {
      for (const host of target.hosts) {
        const reason = await probe(options, host, attrs, pass);
        if (reason === null) return host;
        reasons.push(`${hostName(host)}: ${reason}`);
      }
    }
    throw new NoSuitableServerError(`no ${attrs} PostgreSQL server among ${target.hosts.map(hostName).join(', ')} (${reasons.join('; ')})`);
  };

  const chosenHost = (options: pg.ClientConfig): Promise<PostgresHost> => {
    if (known) return Promise.resolve(known);
    probing ??= findHost(options)
      .then((host) => (known = host))
      .finally(() => (probing = null));
    return probing;
  };

  return class SessionTargetingClient extends pg.Client {
    readonly #options: pg.ClientConfig;

    constructor(options: pg.ClientConfig) {
      super(options);
      this.#options = options;
    }

    // pg-pool calls connect(callback); everything else awaits the promise (resolved with the client, as pg's).
    override connect(): Promise<pg.Client>;
    override connect(callback: ((error: Error) => void) | ((error: null, client: pg.Client) => void)): void;
    override connect(callback?: (...args: never[]) => void): Promise<pg.Client> | void {
      const connected = this.#connectToTarget().then(() => this as pg.Client);
      if (!callback) return connected;
      const done = callback as (error: Error | null, client?: pg.Client) => void;
      connected.then((client) => done(null, client), (error: Error) => done(error));
    }

    async #connectToTarget(): Promise<void> {
      const host = await chosenHost(this.#options);
      // pg reads host and port when it connects, not before.
      this.host = socketHost(host);
      this.port = host.port;
      try {
        await super.connect();
        if (attrs === 'any' || suits(attrs, await roleOf(this), 2)) return;
      } catch (error) {
        if (known === host) known = null;
        throw error;
      }
      if (known === host) known = null;
      await this.end().catch(() => {});
      throw new NoSuitableServerError(`PostgreSQL at ${hostName(host)} is no longer ${attrs}`);
    }
  };
}
