/**
 * Ceilings on second-factor codes that hold whatever the client address.
 * The log-in throttle counts codes per address and e-mail, so 40 addresses
 * once sent 200 wrong codes at one challenge and the right one still worked
 * (issue 35). Above it:
 *
 * - per challenge: 10 codes are checked, then the challenge is dead, the
 *   right code included; the user logs in with the password again;
 * - per account: 20 wrong codes in an hour, across every address and
 *   challenge, and codes (app and recovery codes) are refused for that
 *   account until the hour has passed or its owner follows the link mailed
 *   to them (single use, one hour, only its SHA-256 kept). The mail warns
 *   them once per lock and holds no code or secret.
 *
 * Each code is counted by one conditional update of the user's row before it
 * is checked (a right one is given back afterwards), so a burst sent at once
 * gets no more than the ceiling checked. The counts live in the database:
 * every node sees the same ones, and when the database is unreachable no
 * code is checked at all (it fails safe, unlike a counter that would fall
 * back to each node's memory).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '../../db/orm';
import type { Mail } from '../mailer';
import { operatorRefusal } from '../refusal';

export const CHALLENGE_CODE_CEILING = 10;
export const ACCOUNT_CODE_CEILING = 20;
export const ACCOUNT_CODE_WINDOW_MS = 3600_000;
export const UNLOCK_LINK_TTL_MS = 3600_000;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** Rows changed by a statement, in the caller's transaction if it has one. */
async function changed(em: EntityManager, sql: string, params: unknown[]): Promise<number> {
  const result = await em.getConnection().execute(sql, params, 'run', em.getTransactionContext());
  return (result as { affectedRows?: number }).affectedRows ?? 0;
}

export const DEAD_CHALLENGE = 'Too many wrong codes for this log-in; enter your e-mail and password again.';

/** Counts a code against the challenge (by its hash) before it is checked; refuses (401) once the challenge had its ten. */
export async function countChallengeCode(em: EntityManager, userId: string, challengeHash: string): Promise<void> {
  const counted = await changed(
    em,
    `update users set second_factor_challenge_codes = second_factor_challenge_codes + 1
      where id = ? and second_factor_challenge_hash = ? and second_factor_challenge_codes < ?`,
    [userId, challengeHash, CHALLENGE_CODE_CEILING],
  );
  // Dead until it expires or the next log-in replaces it (that one starts from zero); it says why to whoever holds it.
  if (counted !== 1) throw operatorRefusal('unauthorized', DEAD_CHALLENGE);
}

/** A window that began before this has passed: the account's count starts again. */
const windowStartedBefore = (now: Date) => new Date(now.getTime() - ACCOUNT_CODE_WINDOW_MS);

/**
 * Counts a code against the account before it is checked. Refuses (429, with
 * the seconds until the window passes) once the account's window holds its
 * twenty, without checking the code: the answer tells nothing about it.
 */
export async function countAccountCode(em: EntityManager, userId: string, now: Date): Promise<void> {
  const expired = windowStartedBefore(now);
  const counted = await changed(
    em,
    `update users set
        second_factor_failures = case when second_factor_failures_since is null or second_factor_failures_since <= ? then 1 else second_factor_failures + 1 end,
        second_factor_failures_since = case when second_factor_failures_since is null or second_factor_failures_since <= ? then ? else second_factor_failures_since end
      where id = ? and (second_factor_failures_since is null or second_factor_failures_since <= ? or second_factor_failures < ?)`,
    [expired, expired, now, userId, expired, ACCOUNT_CODE_CEILING],
  );
  if (counted === 1) return;
  const rows = await em.getConnection().execute<{ since: Date | string | null }[]>(`select second_factor_failures_since as since from users where id = ?`, [userId], 'all', em.getTransactionContext());
  const since = rows[0]?.since ? new Date(rows[0].since) : now;
  const wait = Math.max(1, Math.ceil((since.getTime() + ACCOUNT_CODE_WINDOW_MS - now.getTime()) / 1000));
  throw operatorRefusal(
    'rate_limited',
    `Too many wrong codes for this account: codes are refused for ${Math.ceil(wait / 60)} minute(s), or until the link mailed to the account's address is followed.`,
    wait,
  );
}

/** A right code: its count is given back, so the owner's own codes never use up the account's window. */
export async function giveBackAccountCode(em: EntityManager, userId: string): Promise<void> {
  await changed(em, `update users set second_factor_failures = greatest(second_factor_failures - 1, 0) where id = ?`, [userId]);
}

export interface AccountLock {
  email: string;
  /** The unlock link's token (mailed, never stored). */
  token: string;
  until: Date;
  linkExpiresAt: Date;
}

/**
 * After a wrong code: when the account's window is full and its owner has not
 * been warned of this lock yet, an unlock link is made (one conditional
 * update, so of many wrong codes at once exactly one gets it) and answered
 * for mailing; otherwise null.
 */
export async function lockIfFull(em: EntityManager, user: { id: string; email: string }, now: Date): Promise<AccountLock | null> {
  const token = randomBytes(32).toString('base64url');
  const linkExpiresAt = new Date(now.getTime() + UNLOCK_LINK_TTL_MS);
  const locked = await changed(
    em,
    `update users set second_factor_lock_mailed_at = ?, second_factor_unlock_hash = ?, second_factor_unlock_expires_at = ?
      where id = ? and second_factor_failures >= ? and second_factor_failures_since > ?
        and (second_factor_lock_mailed_at is null or second_factor_lock_mailed_at < second_factor_failures_since)`,
    [now, sha256(token), linkExpiresAt, user.id, ACCOUNT_CODE_CEILING, windowStartedBefore(now)],
  );
  if (locked !== 1) return null;
  const rows = await em.getConnection().execute<{ since: Date | string }[]>(`select second_factor_failures_since as since from users where id = ?`, [user.id], 'all', em.getTransactionContext());
  const until = new Date(new Date(rows[0]!.since).getTime() + ACCOUNT_CODE_WINDOW_MS);
  return { email: user.email, token, until, linkExpiresAt };
}

export const unlockUrl = (publicUrl: string, token: string) => `${publicUrl.replace(/\/$/, '')}/dashboard/unlock-codes#${token}`;

/** The owner's warning: what happened, until when, and the link that frees the codes. No code, no secret. */
export const lockMail = (lock: AccountLock, url: string): Mail => ({
  to: lock.email,
  subject: 'Wrong second-factor codes for your payments dashboard account',
  text: [
    `Someone entered ${ACCOUNT_CODE_CEILING} wrong second-factor codes for this account within an hour, after giving its password.`,
    `Codes are refused for this account until ${lock.until.toUTCString()}.`,
    '',
    'If it was you, open this link to allow codes again now (it works once, until ' + lock.linkExpiresAt.toUTCString() + '):',
    url,
    '',
    'If it was not you, someone knows your password: log in and change it.',
  ].join('\n'),
});

const UNUSABLE = 'This link is not valid any more; the codes are allowed again when the hour has passed.';

/** Follows a mailed link: the account's count starts again and codes are accepted at once. Single use. */
export async function unlockCodes(em: EntityManager, token: string, now: Date): Promise<void> {
  const unlocked = await changed(
    em,
    `update users set second_factor_failures = 0, second_factor_failures_since = null, second_factor_lock_mailed_at = null,
        second_factor_unlock_hash = null, second_factor_unlock_expires_at = null
      where second_factor_unlock_hash = ? and second_factor_unlock_expires_at > ? and disabled_at is null`,
    [sha256(token), now],
  );
  if (unlocked !== 1) throw operatorRefusal('unauthorized', UNUSABLE);
}
