/**
 * Dashboard users: created by an operator (CLI `users create`) or by
 * accepting an invitation; e-mail is their login, kept lower-cased.
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { DashboardSession, User } from '../../db/entities';
import type { EntityManager } from '../../db/orm';
import { notFound, operatorRefusal } from '../refusal';
import { dummyHash, hashPassword, needsRehash, verifyPassword } from './passwords';
import type { LoginClient, LoginThrottle } from './throttle';

/** One address, one user: `Maria@Example.com ` and `maria@example.com` are the same person. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

export const userView = (user: User) => ({
  id: user.id,
  email: user.email,
  platformOperator: user.platformOperator,
  disabled: user.disabledAt != null,
  secondFactor: user.secondFactorSealed != null,
  createdAt: user.createdAt.toISOString(),
});

export async function createUser(em: EntityManager, input: { email: string; password: string; platformOperator?: boolean }): Promise<User> {
  const email = normalizeEmail(input.email);
  if (await em.findOne(User, { email })) throw operatorRefusal('conflict', `A user with e-mail ${email} already exists.`);
  const user = em.create(User, { email, passwordHash: await hashPassword(input.password), platformOperator: input.platformOperator ?? false, disabledAt: null });
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw operatorRefusal('conflict', `A user with e-mail ${email} already exists.`);
    throw error;
  }
  return user;
}

export async function loadUser(em: EntityManager, userId: string): Promise<User> {
  const user = await em.findOne(User, { id: userId });
  if (!user) throw notFound('User', userId);
  return user;
}

export async function listUsers(em: EntityManager) {
  return (await em.find(User, {}, { orderBy: { createdAt: 'asc', id: 'asc' } })).map(userView);
}

/** Ends every session of a user (all of them, or all but the one that asked). */
export async function revokeUserSessions(em: EntityManager, userId: string, now: Date, except?: string): Promise<number> {
  return em.nativeUpdate(DashboardSession, { user: userId, revokedAt: null, ...(except ? { id: { $ne: except } } : {}) }, { revokedAt: now });
}

/** A new password ends the user's other sessions: whoever knew the old one is logged out. */
export async function setPassword(em: EntityManager, user: User, password: string, now: Date, keepSession?: string): Promise<void> {
  user.passwordHash = await hashPassword(password);
  user.passwordChangedAt = now;
  await em.flush();
  await revokeUserSessions(em, user.id, now, keepSession);
}

export async function setUserDisabled(em: EntityManager, userId: string, disabled: boolean, now: Date) {
  const user = await loadUser(em, userId);
  user.disabledAt = disabled ? (user.disabledAt ?? now) : null;
  await em.flush();
  if (disabled) await revokeUserSessions(em, user.id, now);
  return userView(user);
}

const WRONG = 'Wrong e-mail or password.';

/** Who is trying, apart from the e-mail: see throttle.ts. */
export type Client = Omit<LoginClient, 'email'>;

/**
 * Checks an e-mail and password. The attempt is counted before the check
 * (throttle.ts), so no more guesses than the limit are ever evaluated. An
 * unknown e-mail, a wrong password and a disabled user get the same answer
 * after the same work (a dummy hash is checked), so the answer does not tell
 * who has an account.
 */
export async function checkCredentials(em: EntityManager, throttle: LoginThrottle, input: { email: string; password: string; client: Client }): Promise<User> {
  const client = { ...input.client, email: normalizeEmail(input.email) };
  const wait = await throttle.attempt(client);
  if (wait > 0) throw operatorRefusal('rate_limited', `Too many failed log-ins; try again in ${Math.ceil(wait / 60)} minute(s).`, wait);
  const user = await em.findOne(User, { email: client.email });
  const matches = await verifyPassword(input.password, user?.passwordHash ?? (await dummyHash()));
  if (!user || !matches || user.disabledAt) throw operatorRefusal('unauthorized', WRONG);
  await throttle.succeeded(client);
  if (needsRehash(user.passwordHash)) {
    user.passwordHash = await hashPassword(input.password);
    await em.flush();
  }
  return user;
}

/**
 * For a signed-in user changing their own password: the current one must
 * match. Attempts count with the log-in's (same e-mail and client), so a
 * borrowed session cannot try passwords faster than the log-in page allows,
 * then lock the owner out.
 */
export async function changeOwnPassword(
  em: EntityManager,
  throttle: LoginThrottle,
  input: { userId: string; currentPassword: string; newPassword: string; sessionId: string; client: Client },
  now: Date,
): Promise<void> {
  const user = await loadUser(em, input.userId);
  await confirmOwnPassword(throttle, user, input.currentPassword, input.client, 'The current password is wrong.');
  await setPassword(em, user, input.newPassword, now, input.sessionId);
}

/**
 * A signed-in user proves their password again before a sensitive change
 * (a new password, turning the second factor off): counted by the log-in
 * throttle under their e-mail, as a log-in would be.
 */
export async function confirmOwnPassword(throttle: LoginThrottle, user: User, password: string, client: Client, wrong: string): Promise<void> {
  const counted = { ...client, email: user.email };
  const wait = await throttle.attempt(counted);
  if (wait > 0) throw operatorRefusal('rate_limited', `Too many wrong passwords; try again in ${Math.ceil(wait / 60)} minute(s).`, wait);
  if (!(await verifyPassword(password, user.passwordHash))) throw operatorRefusal('invalid', wrong);
  await throttle.succeeded(counted);
}
