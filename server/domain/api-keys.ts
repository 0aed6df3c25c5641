/**
 * API key secrets: `sk_test_…` (sandbox) or `sk_live_…` (production) followed
 * by 32 base36 characters. Only a SHA-256 of the whole key is stored: the key
 * has ~165 bits of entropy, so a fast hash is enough and lets the lookup be an
 * indexed equality (no secret-dependent comparison in application code).
 */
import { createHash } from 'node:crypto';
import type { EnvironmentKind } from '../contract/enums';
import { randomToken } from './ids';

const KEY_PATTERN = /^sk_(test|live)_[0-9a-z]{32}$/;

export const keyPrefixFor = (kind: EnvironmentKind): string => (kind === 'sandbox' ? 'sk_test_' : 'sk_live_');

export function generateApiKey(kind: EnvironmentKind): { secret: string; hash: string; displayPrefix: string } {
  const secret = `${keyPrefixFor(kind)}${randomToken(32)}`;
  return { secret, hash: hashApiKey(secret), displayPrefix: secret.slice(0, 12) };
}

export const hashApiKey = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** The environment kind a well-formed key names by its prefix, or null when the key is malformed. */
export function kindOfApiKey(secret: string): EnvironmentKind | null {
  const match = KEY_PATTERN.exec(secret);
  if (!match) return null;
  return match[1] === 'test' ? 'sandbox' : 'production';
}
