/**
 * Development conveniences of the embedded default, kept in the data folder
 * (never in the repo): the admin token when none is configured, and the demo
 * sandbox key so it can be shown again on every start.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomToken } from '../domain/ids';

export function readLocalSecret(dataDir: string, name: string): string | null {
  try {
    return readFileSync(join(dataDir, name), 'utf8').trim() || null;
  } catch {
    return null;
  }
}

export function writeLocalSecret(dataDir: string, name: string, value: string): void {
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(dataDir, name), `${value}\n`, { mode: 0o600 });
}

export const ADMIN_TOKEN_FILE = 'admin-token';
export const DEMO_KEY_FILE = 'demo-api-key';

export function localAdminToken(dataDir: string): string {
  const existing = readLocalSecret(dataDir, ADMIN_TOKEN_FILE);
  if (existing) return existing;
  const token = `adm_${randomToken(40)}`;
  writeLocalSecret(dataDir, ADMIN_TOKEN_FILE, token);
  return token;
}
