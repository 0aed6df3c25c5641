/**
 * Where `webhook listen` keeps the signing secret of an API key on the
 * developer's machine (cli/listen-secrets.ts): the user's config folder, one
 * file per key, for the owner alone, never the key itself; reused until
 * renewed; a damaged file is said, not silently replaced.
 */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configDir, listenSecretFor } from '../../cli/listen-secrets';

const KEY = `sk_test_${'a1'.repeat(16)}`;
const OTHER_KEY = `sk_test_${'b2'.repeat(16)}`;

describe('the kept listen signing secret', () => {
  let root: string;
  let env: NodeJS.ProcessEnv;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'payments-listen-secrets-'));
    env = { XDG_CONFIG_HOME: root };
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('lives in XDG_CONFIG_HOME/payments-admin, or ~/.config/payments-admin (a relative XDG_CONFIG_HOME is ignored, as the spec says)', () => {
    expect(configDir({ XDG_CONFIG_HOME: '/x/config' })).toBe('/x/config/payments-admin');
    expect(configDir({})).toBe(join(homedir(), '.config', 'payments-admin'));
    expect(configDir({ XDG_CONFIG_HOME: 'relative/config' })).toBe(join(homedir(), '.config', 'payments-admin'));
  });

  it('is made once per key, kept for the owner alone without the key, reused, and replaced by renew', () => {
    const first = listenSecretFor(KEY, { renew: false, env });
    expect(first).toMatchObject({ made: true, secret: expect.stringMatching(/^whsec_[0-9a-z]{40}$/) });
    expect(first.file.startsWith(join(root, 'payments-admin', 'listen-secrets'))).toBe(true);
    expect(statSync(first.file).mode & 0o777).toBe(0o600);
    expect(statSync(join(root, 'payments-admin', 'listen-secrets')).mode & 0o777).toBe(0o700);
    expect(readFileSync(first.file, 'utf8')).not.toContain(KEY);

    expect(listenSecretFor(KEY, { renew: false, env })).toEqual({ ...first, made: false });
    const other = listenSecretFor(OTHER_KEY, { renew: false, env });
    expect(other.secret).not.toBe(first.secret);
    expect(other.file).not.toBe(first.file);

    const renewed = listenSecretFor(KEY, { renew: true, env });
    expect(renewed).toMatchObject({ made: true, file: first.file });
    expect(renewed.secret).not.toBe(first.secret);
    expect(statSync(first.file).mode & 0o777).toBe(0o600);
    expect(listenSecretFor(KEY, { renew: false, env }).secret).toBe(renewed.secret);
    // No temporary file left behind by the replacement.
    expect(readdirSync(join(root, 'payments-admin', 'listen-secrets')).sort()).toEqual([first.file, other.file].map((f) => f.split('/').pop()).sort());
  });

  it('a file readable by others is tightened to 0600', () => {
    const { file, secret } = listenSecretFor(KEY, { renew: false, env });
    chmodSync(file, 0o644);
    expect(listenSecretFor(KEY, { renew: false, env }).secret).toBe(secret);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('a damaged file is refused with its path, never its content; --new-secret writes a good one', () => {
    const { file } = listenSecretFor(KEY, { renew: false, env });
    writeFileSync(file, 'whsec_half');
    expect(() => listenSecretFor(KEY, { renew: false, env })).toThrow(`${file} does not hold a listen signing secret; remove it, or pass --new-secret to write a new one.`);
    expect(listenSecretFor(KEY, { renew: true, env }).made).toBe(true);
    expect(listenSecretFor(KEY, { renew: false, env }).made).toBe(false);
  });
});
