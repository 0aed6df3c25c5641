/**
 * "Forgot password": a single-use link mailed to the account's address, valid
 * for an hour; only the token's SHA-256 is stored. Asking answers the same
 * whether or not the address has an account. A reset sets the new password,
 * ends every session of the user and every other link.
 */
import { createHash, randomBytes } from 'node:crypto';
import { PasswordReset, User } from '../../db/entities';
import type { EntityManager } from '../../db/orm';
import type { Mail } from '../mailer';
import { operatorRefusal } from '../refusal';
import { normalizeEmail, setPassword } from './users';

export const PASSWORD_RESET_TTL_MS = 3600_000;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

export const passwordResetUrl = (publicUrl: string, token: string) => `${publicUrl.replace(/\/$/, '')}/dashboard/reset-password#${token}`;

/** The link for an active account's address, or null for any other address (nothing is sent then). */
export async function createPasswordReset(em: EntityManager, email: string, now: Date): Promise<{ user: User; token: string; expiresAt: Date } | null> {
  const user = await em.findOne(User, { email: normalizeEmail(email) });
  if (!user || user.disabledAt) return null;
  // One live link per user: a new request ends the earlier ones.
  await em.nativeDelete(PasswordReset, { user, usedAt: null });
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + PASSWORD_RESET_TTL_MS);
  em.create(PasswordReset, { user, tokenHash: sha256(token), createdAt: now, expiresAt, usedAt: null });
  await em.flush();
  return { user, token, expiresAt };
}

export const passwordResetMail = (email: string, url: string, expiresAt: Date): Mail => ({
  to: email,
  subject: 'Reset your payments dashboard password',
  text: [
    'Someone (hopefully you) asked to reset the password of this account.',
    '',
    `Open this link to choose a new one (it works once, until ${expiresAt.toUTCString()}):`,
    url,
    '',
    'If you did not ask, ignore this mail: your password stays as it is.',
  ].join('\n'),
});

const UNUSABLE = 'This reset link is not valid any more; ask for a new one.';

/** Sets the new password from a live link; every session of the user ends. */
export async function resetPassword(em: EntityManager, input: { token: string; password: string }, now: Date): Promise<void> {
  const reset = await em.findOne(PasswordReset, { tokenHash: sha256(input.token) }, { populate: ['user'] });
  if (!reset || reset.usedAt || reset.expiresAt <= now || reset.user.disabledAt) throw operatorRefusal('unauthorized', UNUSABLE);
  // Of two concurrent uses exactly one changes the row.
  if ((await em.nativeUpdate(PasswordReset, { id: reset.id, usedAt: null }, { usedAt: now })) !== 1) throw operatorRefusal('unauthorized', UNUSABLE);
  await em.nativeDelete(PasswordReset, { user: reset.user, usedAt: null });
  await setPassword(em, reset.user, input.password, now);
}
