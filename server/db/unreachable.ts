/**
 * Whether a failure means the database could not be reached (decision 24):
 * the connection refused, reset or timed out, no pooled connection within
 * the pool's deadline, the server shutting down or refusing new sessions,
 * the connection dropped mid-query, or a write acknowledged without waiting
 * for the disk and lost since (LostWriteError). Such a failure is nobody's bug: /v1
 * and the operator API answer 503 `service_unavailable`, and the background
 * jobs back off quietly (runtime/background-loop.ts).
 *
 * Recognised by code first: PostgreSQL's SQLSTATE (class 08 connection
 * exceptions, 57P01-57P03 shutdown and start-up, 53300 too many
 * connections) and the operating system's network codes, found anywhere
 * along the error's causes. `pg` and `pg-pool` report a dropped connection
 * and their own timeouts as plain errors with no code, so those few are
 * recognised by their exact text (compared whole, not matched as a pattern);
 * MikroORM copies that text onto its DriverException unchanged.
 * Only PostgreSQL can be cut off: PGlite runs in the process.
 */

/** Network codes of Node's sockets and resolver that mean the peer could not be reached or went away. */
export const NETWORK_CODES: readonly string[] = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'EPIPE'];

/** SQLSTATEs outside class 08 that still mean "no usable connection now". */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** What pg 8 and pg-pool 3 throw, with no code, when a connection is lost or not had in time (node_modules/pg/lib/client.js, pg-pool/index.js). */
const PG_CONNECTION_FAILURES: Record<string, string> = {
  'Connection terminated unexpectedly': 'connection_terminated',
  'Connection terminated due to connection timeout': 'connect_timeout',
  'timeout exceeded when trying to connect': 'pool_timeout',
  'Client has encountered a connection error and is not queryable': 'connection_broken',
  'Query read timeout': 'query_read_timeout',
};

/**
 * A row the database acknowledged without waiting for its disk or its
 * synchronous standby (a statement committed with `synchronous_commit` off)
 * and then lost in a crash or a failover, found missing by a later statement.
 * The database's outage seen after the fact: answered as unreachable (503,
 * retry), because the retried request writes the row again.
 */
export class LostWriteError extends Error {
  override name = 'LostWriteError';
  readonly code = 'lost_write';
}

/** Codes found along an error's causes (and an AggregateError's errors): a SQLSTATE of PostgreSQL, or a network code. */
export function errorCodes(error: unknown, depth = 0, found: string[] = []): string[] {
  if (!error || typeof error !== 'object' || depth > 6) return found;
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown[] };
  if (typeof code === 'string') found.push(code);
  for (const inner of [cause, ...(Array.isArray(errors) ? errors : [])]) errorCodes(inner, depth + 1, found);
  return found;
}

function pgConnectionFailure(error: unknown, depth = 0): string | null {
  if (!error || typeof error !== 'object' || depth > 6) return null;
  const { message, cause } = error as { message?: unknown; cause?: unknown };
  const known = typeof message === 'string' ? PG_CONNECTION_FAILURES[message] : undefined;
  return known ?? pgConnectionFailure(cause, depth + 1);
}

/**
 * The reason the database was unreachable (a code such as `ECONNREFUSED`,
 * `57P01` or `pool_timeout`, safe to log), or null when the failure is
 * something else.
 */
export function unreachableDatabaseReason(error: unknown): string | null {
  const codes = errorCodes(error);
  const code = codes.find((found) => NETWORK_CODES.includes(found) || found.startsWith('08') && found.length === 5 || UNAVAILABLE_SQLSTATES.has(found) || found === 'lost_write');
  return code ?? pgConnectionFailure(error);
}
