/**
 * Development conveniences of the embedded default, kept in the data folder
 * (never in the repo): the admin token when none is configured, and the demo
 * sandbox key so it can be shown again on every start.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { randomToken } from '../contract/ids';
import { ADMIN_TOKEN_FILE } from '../contract/local-admin-token';
import { ensurePrivateFolder } from './private-folder';

export function readLocalSecret(dataDir: string, name: string): string | null {
  try {
    return readFileSync(join(dataDir, name), 'utf8').trim() || null;
  } catch {
    return null;
  }
}

export function writeLocalSecret(dataDir: string, name: string, value: string): void {
  ensurePrivateFolder(dataDir);
  writeFileSync(join(dataDir, name), `${value}\n`, { mode: 0o600 });
}

export const DEMO_KEY_FILE = 'demo-api-key';
/** The demo dashboard user's generated password, while it is still theirs. */
export const DEMO_PASSWORD_FILE = 'demo-dashboard-password';

export const MASTER_KEY_FILE = 'master-key';

/** Reads a generated secret of the data folder, creating it on first use. */
function localSecret(dataDir: string, name: string, generate: () => string): string {
  const existing = readLocalSecret(dataDir, name);
  if (existing) return existing;
  const value = generate();
  writeLocalSecret(dataDir, name, value);
  return value;
}

export const localAdminToken = (dataDir: string): string => localSecret(dataDir, ADMIN_TOKEN_FILE, () => `adm_${randomToken(40)}`);

/** Losing this file makes stored credentials unreadable: back it up with the data folder. */
export const localMasterKey = (dataDir: string): Buffer =>
  Buffer.from(localSecret(dataDir, MASTER_KEY_FILE, () => randomBytes(32).toString('base64')), 'base64');
