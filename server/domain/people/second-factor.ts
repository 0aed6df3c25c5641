/**
 * A second factor per dashboard user: a TOTP authenticator app
 * (second-factor-totp.ts) and ten one-time recovery codes.
 *
 * Enrolment: a random 160-bit secret is sealed at rest (secret-box.ts) as
 * pending; a code from it confirms it. Recovery codes are shown once and kept
 * as SHA-256 only (they are random, 50 bits each: no slow hash needed).
 * A TOTP code is accepted once: its time step is written with a conditional
 * update, so a replayed code, or two sent together, pass at most once.
 *
 * Log-in: a right password for a user with a second factor gets a challenge
 * instead of a session (random, 5 minutes, single use, only its hash stored
 * on the user); the code then opens the session. Code guesses count in the
 * log-in throttle under their own key, which a right password does not reset,
 * and under ceilings per challenge and per account that no number of client
 * addresses gets round (second-factor-ceilings.ts).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { DashboardSession, Membership, Organization, User } from '../../db/entities';
import type { EntityManager } from '../../db/orm';
import { operatorRefusal } from '../refusal';
import type { SecretBox } from '../secret-box';
import type { LoginThrottle } from './throttle';
import { countAccountCode, countChallengeCode, giveBackAccountCode, lockIfFull, type AccountLock } from './second-factor-ceilings';
import { confirmOwnPassword, loadUser, normalizeEmail, revokeUserSessions, type Client } from './users';
import { matchingStep, newTotpSecret, otpauthUri, stepAt } from './second-factor-totp';

/** What authenticator apps show above the code. */
export const TOTP_ISSUER = 'Payments dashboard';
export const RECOVERY_CODE_COUNT = 10;
export const CHALLENGE_TTL_MS = 5 * 60_000;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const RECOVERY_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789'; // 32 symbols, no 0/o/1/l to misread

/** A recovery code as typed: case, spaces and dashes do not matter. */
const normalizeRecoveryCode = (code: string) => code.toLowerCase().replace(/[\s-]/g, '');

function newRecoveryCode(): string {
  const bytes = randomBytes(10);
  const chars = [...bytes].map((byte) => RECOVERY_ALPHABET[byte & 31]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

function newRecoveryCodes(): { codes: string[]; hashes: string[] } {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  return { codes, hashes: codes.map((code) => sha256(normalizeRecoveryCode(code))) };
}

/** What a user proves with: a code from the app, or a recovery code. */
export type SecondFactorProof = { code: string } | { recoveryCode: string };

export const hasSecondFactor = (user: User): boolean => user.secondFactorSealed != null;

export function secondFactorStatus(user: User) {
  return {
    enabled: hasSecondFactor(user),
    enabledAt: user.secondFactorEnabledAt?.toISOString() ?? null,
    recoveryCodesLeft: user.recoveryCodeHashes?.length ?? 0,
  };
}

/**
 * Begins (or begins again) an enrolment: a new pending secret, and what the
 * app needs to learn it. The password first (the throttled check a password
 * change uses): a borrowed session cannot put its own phone on the account
 * and lock the owner out.
 */
export async function startEnrolment(em: EntityManager, secrets: SecretBox, throttle: LoginThrottle, input: { userId: string; password: string; client: Client }) {
  const user = await loadUser(em, input.userId);
  if (hasSecondFactor(user)) throw operatorRefusal('conflict', 'You already have a second factor; disable it first to enrol another.');
  await confirmOwnPassword(throttle, user, input.password, input.client, 'The password is wrong.');
  const secret = newTotpSecret();
  user.secondFactorPendingSealed = secrets.seal(secret);
  await em.flush();
  return { secret, uri: otpauthUri(TOTP_ISSUER, user.email, secret), issuer: TOTP_ISSUER, account: user.email };
}

/**
 * Accepts a TOTP code once: the step it matches is written only if it is
 * later than the last accepted one (atomic), so a replay is refused.
 */
async function acceptTotp(em: EntityManager, user: User, secret: string, code: string, now: Date): Promise<boolean> {
  const step = matchingStep(secret, code, now);
  if (step === null) return false;
  const accepted = await em.nativeUpdate(User, { id: user.id, $or: [{ secondFactorLastStep: null }, { secondFactorLastStep: { $lt: step } }] }, { secondFactorLastStep: step });
  if (accepted === 1) user.secondFactorLastStep = step;
  return accepted === 1;
}

/** Consumes a recovery code once (atomic: removed from the list only if it is still in it). */
async function consumeRecoveryCode(em: EntityManager, user: User, presented: string): Promise<boolean> {
  const hash = sha256(normalizeRecoveryCode(presented));
  const hashes = user.recoveryCodeHashes ?? [];
  // Every stored hash is compared, in constant time, whichever matches.
  let found = false;
  for (const stored of hashes) found = timingSafeEqual(Buffer.from(stored), Buffer.from(hash)) || found;
  if (!found) return false;
  const result = await em
    .getConnection()
    // In the caller's transaction, if any (an audited change): outside it the row could wait on itself.
    .execute(`update users set recovery_code_hashes = recovery_code_hashes - ?::text where id = ? and recovery_code_hashes @> ?::jsonb`, [hash, user.id, JSON.stringify([hash])], 'run', em.getTransactionContext());
  const removed = (result as { affectedRows?: number }).affectedRows === 1;
  if (removed) {
    user.recoveryCodeHashes = hashes.filter((stored) => stored !== hash);
    // The entity is told its own copy is current, so a later flush does not write the old list back.
    em.getUnitOfWork().computeChangeSet(user);
  }
  return removed;
}

/** Checks a proof against the user's confirmed second factor; a used recovery code is gone afterwards. */
async function proves(em: EntityManager, secrets: SecretBox, user: User, proof: SecondFactorProof, now: Date): Promise<'totp' | 'recovery_code' | null> {
  if (!user.secondFactorSealed) return null;
  if ('code' in proof) return (await acceptTotp(em, user, secrets.open(user.secondFactorSealed), proof.code, now)) ? 'totp' : null;
  return (await consumeRecoveryCode(em, user, proof.recoveryCode)) ? 'recovery_code' : null;
}

/** The throttle's client for code guesses: its own key, which a right password does not clear. */
const codeClient = (email: string, client: Client) => ({ ...client, email: `second-factor:${normalizeEmail(email)}` });

async function throttled(throttle: LoginThrottle, email: string, client: Client): Promise<void> {
  const wait = await throttle.attempt(codeClient(email, client));
  if (wait > 0) throw operatorRefusal('rate_limited', `Too many wrong codes; try again in ${Math.ceil(wait / 60)} minute(s).`, wait);
}

/** Told when wrong codes lock an account (once per lock): the caller mails its owner. */
export type WarnOwner = (lock: AccountLock) => void;

/**
 * Checks a proof for a signed-in or logging-in user, counted by the throttle
 * (per address and e-mail) and against the account's ceiling; throws when it
 * does not prove. Not in a transaction: a refusal must not roll its count back.
 */
async function requireProof(em: EntityManager, secrets: SecretBox, throttle: LoginThrottle, user: User, proof: SecondFactorProof, client: Client, now: Date, warn: WarnOwner) {
  await throttled(throttle, user.email, client);
  await countAccountCode(em, user.id, now);
  const method = await proves(em, secrets, user, proof, now);
  if (!method) {
    const lock = await lockIfFull(em, user, now);
    if (lock) warn(lock);
    throw operatorRefusal('invalid', 'recoveryCode' in proof ? 'That recovery code is wrong or already used.' : 'That code is wrong or was already used; wait for the next one.');
  }
  await giveBackAccountCode(em, user.id);
  await throttle.succeeded(codeClient(user.email, client));
  return method;
}

/**
 * Confirms the pending secret with a current code: the second factor is on,
 * ten recovery codes are made (answered this once), the user's other
 * sessions end (they did not prove it), and this one counts as proven.
 */
export async function confirmEnrolment(
  em: EntityManager,
  secrets: SecretBox,
  throttle: LoginThrottle,
  input: { userId: string; code: string; sessionId: string; client: Client },
  now: Date,
) {
  const user = await loadUser(em, input.userId);
  if (hasSecondFactor(user)) throw operatorRefusal('conflict', 'You already have a second factor.');
  if (!user.secondFactorPendingSealed) throw operatorRefusal('unavailable', 'Start the enrolment first: there is no secret to confirm.');
  await throttled(throttle, user.email, input.client);
  if (!(await acceptTotp(em, user, secrets.open(user.secondFactorPendingSealed), input.code, now))) {
    throw operatorRefusal('invalid', 'That code does not match; check the phone shows the new entry and try the current code.');
  }
  await throttle.succeeded(codeClient(user.email, input.client));
  const { codes, hashes } = newRecoveryCodes();
  user.secondFactorSealed = user.secondFactorPendingSealed;
  user.secondFactorPendingSealed = null;
  user.secondFactorEnabledAt = now;
  user.recoveryCodeHashes = hashes;
  await em.flush();
  await revokeUserSessions(em, user.id, now, input.sessionId);
  await em.nativeUpdate(DashboardSession, { id: input.sessionId }, { secondFactorAt: now });
  return { enabled: true, recoveryCodes: codes };
}

function clearSecondFactor(user: User): void {
  user.secondFactorSealed = null;
  user.secondFactorPendingSealed = null;
  user.secondFactorEnabledAt = null;
  user.secondFactorLastStep = null;
  user.recoveryCodeHashes = null;
  user.secondFactorChallengeHash = null;
  user.secondFactorChallengeExpiresAt = null;
}

/**
 * A signed-in user proves their own second factor before changing it: the
 * password too when given (turning it off), and a code or a recovery code,
 * all counted. Outside the change's transaction, so a refusal keeps its count.
 */
export async function proveOwnSecondFactor(
  em: EntityManager,
  secrets: SecretBox,
  throttle: LoginThrottle,
  input: { userId: string; password?: string; proof: SecondFactorProof; client: Client },
  now: Date,
  warn: WarnOwner,
): Promise<void> {
  const user = await loadUser(em, input.userId);
  if (!hasSecondFactor(user)) throw operatorRefusal('unavailable', 'You have no second factor.');
  if (input.password !== undefined) await confirmOwnPassword(throttle, user, input.password, input.client, 'The password is wrong.');
  await requireProof(em, secrets, throttle, user, input.proof, input.client, now, warn);
}

/** Turns the second factor off, once proveOwnSecondFactor has had the password and a code. */
export async function disableSecondFactor(em: EntityManager, userId: string) {
  const user = await loadUser(em, userId);
  clearSecondFactor(user);
  await em.flush();
  return { enabled: false };
}

/** Ten new recovery codes (the old ones stop working), answered this once, once proveOwnSecondFactor has had a code. */
export async function regenerateRecoveryCodes(em: EntityManager, userId: string) {
  const user = await loadUser(em, userId);
  const { codes, hashes } = newRecoveryCodes();
  user.recoveryCodeHashes = hashes;
  await em.flush();
  return { recoveryCodes: codes };
}

/** Operator: a user lost their phone and codes. The second factor is removed and every session of theirs ends. */
export async function resetSecondFactor(em: EntityManager, email: string, now: Date) {
  const user = await em.findOne(User, { email: normalizeEmail(email) });
  if (!user) throw operatorRefusal('not_found', `No user has the e-mail ${normalizeEmail(email)}.`);
  const had = hasSecondFactor(user);
  clearSecondFactor(user);
  await em.flush();
  const sessionsEnded = await revokeUserSessions(em, user.id, now);
  return { userId: user.id, email: user.email, hadSecondFactor: had, sessionsEnded };
}

/** After a right password: a challenge for the second step (the previous one, if any, stops working), no code tried on it yet. */
export async function issueChallenge(em: EntityManager, user: User, now: Date) {
  const token = `${user.id}.${randomBytes(32).toString('base64url')}`;
  const expiresAt = new Date(now.getTime() + CHALLENGE_TTL_MS);
  // Written as is: the codes' count is changed by SQL alone, so the entity's copy of it may be stale.
  await em.nativeUpdate(User, { id: user.id }, { secondFactorChallengeHash: sha256(token), secondFactorChallengeExpiresAt: expiresAt, secondFactorChallengeCodes: 0 });
  return { secondFactorRequired: true as const, challenge: token, expiresAt: expiresAt.toISOString() };
}

const EXPIRED = 'This log-in has expired; enter your e-mail and password again.';

/**
 * The second step of a log-in: the challenge, then the code or a recovery
 * code. The challenge is spent by a right code (single use); a wrong code
 * leaves it for another try, within the throttle, its 5 minutes and its
 * ceiling of codes.
 */
export async function verifyChallenge(
  em: EntityManager,
  secrets: SecretBox,
  throttle: LoginThrottle,
  input: { challenge: string; proof: SecondFactorProof; client: (email: string) => Client },
  now: Date,
  warn: WarnOwner,
) {
  const userId = input.challenge.split('.')[0] ?? '';
  const user = userId ? await em.findOne(User, { id: userId }) : null;
  const presented = Buffer.from(sha256(input.challenge));
  const stored = Buffer.from(user?.secondFactorChallengeHash ?? '0'.repeat(64));
  const valid = timingSafeEqual(presented, stored) && user?.secondFactorChallengeExpiresAt != null && user.secondFactorChallengeExpiresAt > now;
  if (!user || !valid || user.disabledAt || !hasSecondFactor(user)) throw operatorRefusal('unauthorized', EXPIRED);
  await countChallengeCode(em, user.id, sha256(input.challenge));
  const method = await requireProof(em, secrets, throttle, user, input.proof, input.client(user.email), now, warn);
  // Spent: only the holder of this challenge, once.
  const spent = await em.nativeUpdate(User, { id: user.id, secondFactorChallengeHash: sha256(input.challenge) }, { secondFactorChallengeHash: null, secondFactorChallengeExpiresAt: null });
  if (spent !== 1) throw operatorRefusal('unauthorized', EXPIRED);
  return { user, method, recoveryCodesLeft: user.recoveryCodeHashes?.length ?? 0 };
}

/** Owner: whether the organization requires a second factor. Turning it on needs one yourself, or you would lock yourself out. */
export async function setOrganizationRequirement(em: EntityManager, organization: Organization, required: boolean, actorUserId: string | null) {
  if (required && actorUserId) {
    const user = await loadUser(em, actorUserId);
    if (!hasSecondFactor(user)) throw operatorRefusal('unavailable', 'Set up your own second factor first: requiring it without one would lock you out of this organization.');
  }
  const before = organization.requireSecondFactor;
  organization.requireSecondFactor = required;
  await em.flush();
  const members = await em.count(Membership, { organization: organization.id });
  return { organizationId: organization.id, requireSecondFactor: required, changed: before !== required, members };
}
