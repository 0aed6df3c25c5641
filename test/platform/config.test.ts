import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config';

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
