/**
 * Resolves `Authorization: Bearer <key>` to the key and its
 * tenancy. Every failure is the same 401 `unauthorized`; only the message says
 * which check failed, and never echoes the key.
 */
import { ApiError } from '../contract/errors';
import { ApiKey } from '../db/entities';
import type { EntityManager } from '../db/orm';
import type { Principal } from './principal';
import { hashApiKey, kindOfApiKey } from './api-keys';
import { raises } from './raises';

/** Exactly the bearer keyword, one space, and a token without whitespace. */
const BEARER = /^Bearer ([^\s]+)$/;
/** Writing last-used time on every request would turn reads into writes; once a minute is precise enough. */
const LAST_USED_PRECISION_MS = 60_000;

export const AUTHENTICATE = raises(['unauthorized']);

export async function authenticate(em: EntityManager, header: string | undefined, now: Date): Promise<Principal> {
  if (!header) throw new ApiError('unauthorized', {}, 'Missing Authorization header; send "Authorization: Bearer <API key>".');
  const match = BEARER.exec(header);
  if (!match) throw new ApiError('unauthorized', {}, 'Malformed Authorization header; expected "Bearer <API key>" with a single space.');
  const secret = match[1]!;
  const kind = kindOfApiKey(secret);
  if (!kind) throw new ApiError('unauthorized', {}, 'Malformed API key; keys start with sk_test_ or sk_live_.');

  const apiKey = await em.findOne(
    ApiKey,
    { keyHash: hashApiKey(secret) },
    { populate: ['environment', 'environment.project', 'environment.project.organization'] },
  );
  if (!apiKey || apiKey.environment.kind !== kind) throw new ApiError('unauthorized', {}, 'Unknown API key.');
  if (apiKey.revokedAt) throw new ApiError('unauthorized', {}, 'This API key has been revoked.');

  if (!apiKey.lastUsedAt || now.getTime() - apiKey.lastUsedAt.getTime() > LAST_USED_PRECISION_MS) {
    // A direct update: the request's unit of work stays free of this bookkeeping.
    await em.nativeUpdate(ApiKey, { id: apiKey.id }, { lastUsedAt: now });
  }
  const environment = apiKey.environment;
  const project = environment.project;
  return { apiKey, environment, project, organization: project.organization };
}
