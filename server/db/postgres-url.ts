/**
 * PostgreSQL connection URLs as libpq reads them, several hosts included:
 * `postgres://user:pass@h1:5432,h2:5433/db?target_session_attrs=read-write`.
 *
 * Why here: neither `pg` 8 (pg-connection-string parses with `new URL`, which
 * refuses a comma-separated host list) nor MikroORM 7 (Connection
 * getConnectionOptions, also `new URL`) accepts such a URL, and `pg` has no
 * target_session_attrs. The service therefore splits the URL itself: MikroORM
 * gets a single-host URL for the user, password and database, and the pool's
 * connections choose among the hosts (db/session-target.ts).
 */

/** libpq's target_session_attrs values. */
export const TARGET_SESSION_ATTRS = ['any', 'read-write', 'read-only', 'primary', 'standby', 'prefer-standby'] as const;
export type TargetSessionAttrs = (typeof TARGET_SESSION_ATTRS)[number];

export interface PostgresHost {
  host: string;
  port: number;
}

export interface PostgresTarget {
  hosts: readonly PostgresHost[];
  targetSessionAttrs: TargetSessionAttrs;
  database: string;
  /** The URL with only `host` in it and no target_session_attrs: what MikroORM and `pg` can read. */
  urlFor(host: PostgresHost): string;
}

const URL_SHAPE = /^(postgres(?:ql)?):\/\/(?:([^@/?#]*)@)?([^/?#]*)(\/[^?#]*)?(\?[^#]*)?$/;
const HOST_SHAPE = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/;

/** The hosts, database and target_session_attrs of a postgres:// URL; null when it is not one (the reason is not echoed: it may hold a password). */
export function parsePostgresUrl(text: string): PostgresTarget | null {
  const match = URL_SHAPE.exec(text.trim());
  if (!match) return null;
  const [, scheme, userInfo, hostList, path, query] = match;
  const hosts: PostgresHost[] = [];
  for (const entry of hostList!.split(',')) {
    const hostMatch = HOST_SHAPE.exec(entry);
    const port = hostMatch?.[2] ? Number(hostMatch[2]) : 5432;
    if (!hostMatch || port < 1 || port > 65535) return null;
    hosts.push({ host: hostMatch[1]!, port });
  }
  const params = new URLSearchParams(query ?? '');
  const attrs = params.get('target_session_attrs') ?? 'any';
  if (!(TARGET_SESSION_ATTRS as readonly string[]).includes(attrs)) return null;
  params.delete('target_session_attrs');
  const rest = params.size ? `?${params}` : '';
  const urlFor = (host: PostgresHost) => `${scheme}://${userInfo === undefined ? '' : `${userInfo}@`}${host.host}:${host.port}${path ?? ''}${rest}`;
  // Every single-host form must be a URL the drivers accept.
  try {
    for (const host of hosts) new URL(urlFor(host));
  } catch {
    return null;
  }
  return { hosts, targetSessionAttrs: attrs as TargetSessionAttrs, database: decodeURIComponent((path ?? '/').slice(1)), urlFor };
}

/** The URL with its password hidden, for messages and logs; the variable's name when it cannot be read. */
export function redactPostgresUrl(text: string, name = 'DATABASE_URL'): string {
  const match = URL_SHAPE.exec(text.trim());
  if (!match || !parsePostgresUrl(text)) return name;
  const [, scheme, userInfo, hostList, path = '', query = ''] = match;
  const colon = userInfo?.indexOf(':') ?? -1;
  const user = userInfo === undefined ? '' : `${colon >= 0 ? `${userInfo.slice(0, colon)}:***` : userInfo}@`;
  return `${scheme}://${user}${hostList}${path}${query}`;
}
