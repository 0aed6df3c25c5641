import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config';
import { parsePostgresUrl, redactPostgresUrl } from '../../server/db/postgres-url';

describe('configuration', () => {
  it('defaults to the embedded database persisted in ./data', () => {
    const config = loadConfig({});
    expect(config.database).toEqual({ kind: 'pglite', dataDir: './data/pg' });
    expect(config.port).toBe(3000);
    expect(config.seedDemo).toBe(true);
    expect(config.rateLimits).toEqual({ payments_create: 30, payments_sync: 10, payments_cancel: 10, default: 600 });
  });

  it('DATABASE_URL selects PostgreSQL and turns the demo off', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://127.0.0.1:5432/test' });
    expect(config.database).toEqual({ kind: 'postgresql', url: 'postgres://127.0.0.1:5432/test' });
    expect(config.seedDemo).toBe(false);
  });

  it('DATABASE_URL may name several hosts with target_session_attrs, as libpq reads it (a failover pair)', () => {
    const url = 'postgres://svc:pw@10.0.0.1:5432,[::1]:5433,db-b/payments?target_session_attrs=read-write&application_name=api';
    expect(loadConfig({ DATABASE_URL: url }).database).toEqual({ kind: 'postgresql', url });
    const target = parsePostgresUrl(url)!;
    expect(target.hosts).toEqual([
      { host: '10.0.0.1', port: 5432 },
      { host: '[::1]', port: 5433 },
      { host: 'db-b', port: 5432 },
    ]);
    expect(target.targetSessionAttrs).toBe('read-write');
    expect(target.database).toBe('payments');
    // What MikroORM and pg are given: one host, no target_session_attrs (pg would pass it to the server as a setting).
    expect(target.urlFor(target.hosts[1]!)).toBe('postgres://svc:pw@[::1]:5433/payments?application_name=api');
    expect(parsePostgresUrl('postgresql://h/d')!.targetSessionAttrs).toBe('any');
    expect(redactPostgresUrl(url)).toBe('postgres://svc:***@10.0.0.1:5432,[::1]:5433,db-b/payments?target_session_attrs=read-write&application_name=api');
  });

  it.each([
    'postgres://h1:5432,/d',
    'postgres://h1:5432,h2:99999/d',
    'postgres://h1,h2/d?target_session_attrs=writable',
    'postgres://h 1/d',
    'mysql://h1,h2/d',
  ])('refuses a DATABASE_URL it cannot connect with (%s), without echoing it', (url) => {
    expect(() => loadConfig({ DATABASE_URL: url })).toThrow(/DATABASE_URL: must be a postgres:\/\/ URL/);
    expect(parsePostgresUrl(url)).toBeNull();
  });

  it('DATABASE_REPLICA_URLS: read replicas of the DATABASE_URL primary, comma-separated, each URL possibly with several hosts', () => {
    const replicas = 'postgres://r@replica-1:5432/payments, postgres://r@replica-2:5432,replica-3:5432/payments?target_session_attrs=standby';
    expect(loadConfig({ DATABASE_URL: 'postgres://h/payments', DATABASE_REPLICA_URLS: replicas }).database).toEqual({
      kind: 'postgresql',
      url: 'postgres://h/payments',
      replicaUrls: ['postgres://r@replica-1:5432/payments', 'postgres://r@replica-2:5432,replica-3:5432/payments?target_session_attrs=standby'],
    });
    expect(() => loadConfig({ DATABASE_URL: 'postgres://h/payments', DATABASE_REPLICA_URLS: 'postgres://r@replica-1:5432/payments,mysql://x/y' })).toThrow(/DATABASE_REPLICA_URLS: must be comma-separated postgres:\/\/ URLs/);
    expect(() => loadConfig({ DATABASE_REPLICA_URLS: 'postgres://r@replica-1:5432/payments' })).toThrow(/DATABASE_REPLICA_URLS: needs DATABASE_URL/);
  });

  it('an in-memory embedded database for tests', () => {
    expect(loadConfig({ DATABASE_IN_MEMORY: 'true' }).database).toEqual({ kind: 'pglite', dataDir: null });
    expect(loadConfig({ DATABASE_IN_MEMORY: 'false' }).database).toEqual({ kind: 'pglite', dataDir: './data/pg' });
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x/y' }, 'DATABASE_URL'],
    [{ DATABASE_IN_MEMORY: 'maybe' }, 'DATABASE_IN_MEMORY'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ ADMIN_TOKEN: 'short' }, 'ADMIN_TOKEN'],
    [{ NODE_ENV: 'production', DATABASE_URL: 'postgres://h/d' }, 'ADMIN_TOKEN'],
    [{ NODE_ENV: 'production', ADMIN_TOKEN: 'a'.repeat(40) }, 'DATABASE_URL'],
    [{ NODE_ENV: 'production', ADMIN_TOKEN: 'a'.repeat(40), DATABASE_URL: 'postgres://h/d', MASTER_KEY: Buffer.alloc(32, 1).toString('base64') }, 'SMTP_URL'],
    [{ SMTP_URL: 'http://mail.example.com' }, 'SMTP_URL'],
    [{ TRUST_PROXY: 'true' }, 'TRUST_PROXY'],
    [{ HTTP_HEADERS_TIMEOUT_MS: '60000', HTTP_REQUEST_TIMEOUT_MS: '30000' }, 'HTTP_HEADERS_TIMEOUT_MS'],
  ])('a bad value stops start-up naming the variable (%o)', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`${variable}:`));
  });

  it('never echoes a secret value in its error', () => {
    try {
      loadConfig({ ADMIN_TOKEN: 'tiny-secret' });
    } catch (error) {
      expect(String(error)).not.toContain('tiny-secret');
    }
    expect.assertions(1);
  });
});
