/**
 * A merchant's sandbox API key as the credential of the local development
 * tools (`webhook listen`, `trigger`), next to the platform's admin token.
 * The key is authenticated exactly as on /v1 (authenticate.ts: the same
 * cache, so a revocation is seen at once), then held to what a merchant's
 * developer may do without an operator:
 *
 * - production keys (`sk_live_…`) are refused by their prefix, before any
 *   lookup: these tools create test payments and expose every event, and a
 *   live key has no business travelling to them;
 * - the key acts on its own environment only: naming another one is refused
 *   before that environment is read, so nothing about it (not even whether it
 *   exists) is told;
 * - each use counts in the key's own rate-limit windows, as a /v1 request
 *   would (a trigger creates a payment or subscription: the create bucket).
 *
 * Refusals are the operator API's (forbidden, rate_limited), or the /v1
 * `unauthorized` of authenticate.ts, which the operator edge reads alike.
 */
import { bearerCredential } from '../contract/bearer';
import type { Services } from '../services';
import type { EntityManager } from '../db/orm';
import { authenticate } from './authenticate';
import { kindOfApiKey } from './api-keys';
import type { Principal } from './principal';
import type { RateLimitBucket } from './rate-limits';
import { operatorRefusal } from './refusal';

/** Who calls with a sandbox key: the key and the one environment it may act on. */
export interface SandboxKeyCaller {
  apiKeyId: string;
  environmentId: string;
  rateLimits: Principal['rateLimits'];
}

/** `Bearer sk_…`: the caller presents an API key rather than the admin token (which never starts so). */
export const presentsApiKey = (authorization: string | undefined): boolean => bearerCredential(authorization)?.startsWith('sk_') ?? false;

const PRODUCTION_KEY_MESSAGE =
  'Production API keys (sk_live_…) cannot listen to or trigger events; use a sandbox key (sk_test_…) of the environment you develop against.';

/** Authenticates the key of `Authorization: Bearer sk_test_…`; a production key, an unknown or revoked one is refused. */
export async function authenticateSandboxKey(em: EntityManager, services: Services, authorization: string | undefined): Promise<SandboxKeyCaller> {
  const presented = bearerCredential(authorization) ?? '';
  if (kindOfApiKey(presented) === 'production') throw operatorRefusal('forbidden', PRODUCTION_KEY_MESSAGE);
  const principal = await authenticate(em, authorization, services.now(), services.apiKeys);
  // authenticate.ts already matches the prefix with the environment's kind; said again here, where it matters most.
  if (principal.environment.kind !== 'sandbox') throw operatorRefusal('forbidden', PRODUCTION_KEY_MESSAGE);
  return { apiKeyId: principal.apiKeyId, environmentId: principal.environmentId, rateLimits: principal.rateLimits };
}

/** The environment a key caller acts on: its own; another one named is refused without being looked up. */
export function ownEnvironment(caller: SandboxKeyCaller, named: string | undefined): string {
  if (named && named !== caller.environmentId) {
    throw operatorRefusal('forbidden', `This API key belongs to environment ${caller.environmentId}; it can listen to and trigger events there only (leave out --env, or use a key of ${named}).`);
  }
  return caller.environmentId;
}

/** Counts one use in the key's window of `bucket` (its own limit where an operator set one), refusing past the limit. */
export async function countSandboxKeyUse(services: Services, caller: SandboxKeyCaller, bucket: RateLimitBucket): Promise<void> {
  const limit = caller.rateLimits?.[bucket] ?? services.config.rateLimits[bucket];
  const decision = await services.rateLimiter.consume(bucket, caller.apiKeyId, limit);
  if (!decision.allowed) {
    throw operatorRefusal('rate_limited', `Too many requests with this API key (${decision.limit} a minute); try again in ${decision.retryAfter} s.`, Math.max(1, decision.retryAfter));
  }
}
