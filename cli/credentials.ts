/**
 * Who `webhook listen` and `trigger` act as. Two credentials:
 * - the platform's admin token (found as every command finds it: --token,
 *   PAYMENTS_ADMIN_TOKEN, the embedded service's data folder), for any
 *   sandbox environment;
 * - a merchant's sandbox API key (`--api-key`, or PAYMENTS_API_KEY), for its
 *   own environment only: a developer needs no operator to bring events to
 *   their machine.
 *
 * An explicit option wins (both at once is a usage error); then
 * PAYMENTS_API_KEY, then the admin token's usual places. A production key is
 * refused here, before it travels anywhere.
 */
import { findAdminToken } from './client';
import { CliError, TOKEN_HINT } from './errors';

export type DevCredential =
  | { kind: 'admin'; bearer: string }
  /** `bearer` is the key itself. */
  | { kind: 'apiKey'; bearer: string };

/** What to do about a refused API key (never repeating the key). */
export const KEY_HINT = 'Check --api-key/PAYMENTS_API_KEY: a sandbox key (sk_test_…) that has not been revoked.';

export const API_KEY_OPTION_HELP = 'a sandbox API key (sk_test_…) instead of the admin token: its own environment only (env PAYMENTS_API_KEY)';

export function devCredential(given: { token?: string; apiKey?: string }, env: NodeJS.ProcessEnv): DevCredential {
  if (given.apiKey && given.token) throw new CliError('usage', 'pass --api-key or --token, not both.');
  if (given.apiKey) return { kind: 'apiKey', bearer: sandboxKey(given.apiKey, '--api-key') };
  const fromEnv = given.token ? undefined : env.PAYMENTS_API_KEY?.trim();
  if (fromEnv) return { kind: 'apiKey', bearer: sandboxKey(fromEnv, 'PAYMENTS_API_KEY') };
  return { kind: 'admin', bearer: findAdminToken(given.token, env) };
}

/** The key, if it is a sandbox one; the messages name where it came from, never the key. */
function sandboxKey(key: string, from: '--api-key' | 'PAYMENTS_API_KEY'): string {
  // The variable is also what merchants' applications read their key from: an operator's shell may hold a live one.
  const otherwise = from === 'PAYMENTS_API_KEY' ? ' (or pass --token to use the admin token)' : '';
  if (key.startsWith('sk_live_')) {
    throw new CliError('unauthorized', `${from} holds a production API key (sk_live_…); webhook listen and trigger take a sandbox key (sk_test_…) only${otherwise}.`);
  }
  if (!key.startsWith('sk_test_')) throw new CliError('usage', `${from} does not hold a sandbox API key (sk_test_…)${otherwise}.`);
  return key;
}

/** The hint after an `unauthorized` answer, for the credential that was refused. */
export const hintFor = (credential: DevCredential): string => (credential.kind === 'apiKey' ? KEY_HINT : TOKEN_HINT);
