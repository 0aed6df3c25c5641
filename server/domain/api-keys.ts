/**
 * API key secrets: `sk_test_…` (sandbox) or `sk_live_…` (production) followed
 * by 32 base36 characters. Only a SHA-256 of the whole key is stored: the key
 * has ~165 bits of entropy, so a fast hash is enough and lets the lookup be an
 * indexed equality (no secret-dependent comparison in application code).
 * Operators create, list and revoke keys, and set per-key rate limits.
 */
import { createHash } from 'node:crypto';
import type { EnvironmentKind } from '../contract/enums';
import { ApiKey } from '../db/entities';
import type { EntityManager } from '../db/orm';
import { randomToken } from '../contract/ids';
import { notFound } from './refusal';
import type { RateLimitBucket } from './rate-limits';
import { loadEnvironment } from './tenancy';

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

export const apiKeyView = (key: ApiKey) => ({
  id: key.id,
  environmentId: key.environment.id,
  name: key.name ?? null,
  displayPrefix: key.displayPrefix,
  rateLimits: key.rateLimits ?? {},
  createdAt: key.createdAt.toISOString(),
  lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
  revokedAt: key.revokedAt?.toISOString() ?? null,
});

/** A new key for an environment; its secret is in this answer only, the service keeps its hash. */
export async function createApiKey(em: EntityManager, input: { environmentId: string; name?: string }) {
  const environment = await loadEnvironment(em, input.environmentId);
  const { secret, hash, displayPrefix } = generateApiKey(environment.kind);
  const key = em.create(ApiKey, { environment, name: input.name ?? null, keyHash: hash, displayPrefix });
  await em.flush();
  return { ...apiKeyView(key), secret };
}

export async function listApiKeys(em: EntityManager, environmentId: string) {
  const environment = await loadEnvironment(em, environmentId);
  return (await em.find(ApiKey, { environment }, { orderBy: { createdAt: 'asc' } })).map(apiKeyView);
}

async function loadApiKey(em: EntityManager, apiKeyId: string): Promise<ApiKey> {
  const key = await em.findOne(ApiKey, { id: apiKeyId });
  if (!key) throw notFound('API key', apiKeyId);
  return key;
}

/** Takes effect at once: authentication reads the key on every request, nothing is cached. */
export async function revokeApiKey(em: EntityManager, apiKeyId: string, now: Date) {
  const key = await loadApiKey(em, apiKeyId);
  key.revokedAt ??= now;
  await em.flush();
  return apiKeyView(key);
}

/** Per-key requests per minute; null goes back to the service default for that bucket. */
export async function setApiKeyRateLimits(em: EntityManager, apiKeyId: string, limits: Partial<Record<RateLimitBucket, number | null>>) {
  const key = await loadApiKey(em, apiKeyId);
  const merged: Record<string, number> = { ...(key.rateLimits ?? {}) } as Record<string, number>;
  for (const [bucket, limit] of Object.entries(limits)) {
    if (limit == null) delete merged[bucket];
    else merged[bucket] = limit;
  }
  key.rateLimits = Object.keys(merged).length ? merged : null;
  await em.flush();
  return apiKeyView(key);
}
