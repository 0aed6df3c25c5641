/**
 * Invitations to join an organization. The token is 32 random bytes shown
 * once, in a link whose fragment carries it (`…/dashboard/invitation#<token>`),
 * so it never reaches a server's access log; only its SHA-256 is stored.
 * Single use; expires after 7 days. Accepting creates the user with the
 * password they choose, or, for an existing user, checks their password.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { MemberRole } from '../../contract/people';
import { Invitation, Membership, Organization, User } from '../../db/entities';
import type { EntityManager } from '../../db/orm';
import { OperatorError } from '../operator-errors';
import { verifyPassword } from './passwords';
import type { LoginThrottle } from './throttle';
import { createUser, normalizeEmail } from './users';

export const INVITATION_TTL_MS = 7 * 24 * 3600_000;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

export const invitationUrl = (publicUrl: string, token: string) => `${publicUrl.replace(/\/$/, '')}/dashboard/invitation#${token}`;

export async function createInvitation(em: EntityManager, input: { organization: Organization; email: string; role: MemberRole; invitedBy: string | null }, now: Date) {
  const token = randomBytes(32).toString('base64url');
  const invitation = em.create(Invitation, {
    organization: input.organization,
    email: normalizeEmail(input.email),
    role: input.role,
    tokenHash: sha256(token),
    invitedBy: input.invitedBy ? em.getReference(User, input.invitedBy) : null,
    createdAt: now,
    expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
    acceptedAt: null,
    revokedAt: null,
  });
  await em.flush();
  return { invitation, token };
}

export async function revokeInvitation(em: EntityManager, invitationId: string, now: Date) {
  const invitation = await em.findOne(Invitation, { id: invitationId });
  if (!invitation) throw new OperatorError('not_found', `Invitation ${invitationId} does not exist.`);
  invitation.revokedAt ??= now;
  await em.flush();
  return { id: invitation.id, revoked: true };
}

/** One answer for every unusable token: unknown, used, revoked or expired look alike to whoever holds it. */
const UNUSABLE = 'This invitation link is not valid any more; ask for a new one.';

/**
 * For an e-mail that already has an account, the password is checked like a
 * log-in and counted with its failures, so a link cannot be used to guess it
 * (a refused acceptance leaves the link unused).
 */
export async function acceptInvitation(em: EntityManager, throttle: LoginThrottle, input: { token: string; password: string; address: string }, now: Date): Promise<User> {
  return em.transactional(async (tx) => {
    const invitation = await tx.findOne(Invitation, { tokenHash: sha256(input.token) }, { populate: ['organization'] });
    if (!invitation || invitation.acceptedAt || invitation.revokedAt || invitation.expiresAt <= now) throw new OperatorError('unauthorized', UNUSABLE);
    // Claimed before anything else: of two concurrent acceptances exactly one changes the row.
    const claimed = await tx.nativeUpdate(Invitation, { id: invitation.id, acceptedAt: null }, { acceptedAt: now });
    if (claimed !== 1) throw new OperatorError('unauthorized', UNUSABLE);
    let user = await tx.findOne(User, { email: invitation.email });
    if (user) {
      const client = { email: user.email, address: input.address, device: null };
      const wait = await throttle.attempt(client);
      if (wait > 0) throw new OperatorError('rate_limited', `Too many wrong passwords; try again in ${Math.ceil(wait / 60)} minute(s).`, wait);
      if (user.disabledAt || !(await verifyPassword(input.password, user.passwordHash))) {
        throw new OperatorError('unauthorized', `An account for ${invitation.email} already exists: enter its password to accept.`);
      }
      await throttle.succeeded(client);
    } else {
      user = await createUser(tx, { email: invitation.email, password: input.password });
    }
    if (!(await tx.findOne(Membership, { organization: invitation.organization, user }))) {
      tx.create(Membership, { organization: invitation.organization, user, role: invitation.role });
    }
    await tx.flush();
    return user;
  });
}
