/**
 * Invitations to join an organization. The token is 32 random bytes, mailed
 * to the invited address only (people prove their e-mail by receiving it), in
 * a link whose fragment carries it (`…/dashboard/invitation#<token>`), so it
 * never reaches a server's access log; only its SHA-256 is stored. Single
 * use; expires after 7 days.
 *
 * Nobody joins without accepting. A new address accepts by choosing its
 * password; an address that already has an account accepts logged in as
 * that account, so an invitation to a stranger's address (or an account
 * registered in advance by someone else) never adds anyone by itself.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { MemberRole } from '../../contract/people';
import { Invitation, Membership, Organization, User } from '../../db/entities';
import type { EntityManager } from '../../db/orm';
import { isEmbeddedDemo, type Config } from '../../config';
import type { Mail, Mailer } from '../mailer';
import { operatorRefusal } from '../refusal';
import { createUser, normalizeEmail } from './users';

export const INVITATION_TTL_MS = 7 * 24 * 3600_000;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

export const invitationUrl = (publicUrl: string, token: string) => `${publicUrl.replace(/\/$/, '')}/dashboard/invitation#${token}`;

export const invitationView = (invitation: Invitation) => ({
  id: invitation.id,
  email: invitation.email,
  role: invitation.role,
  expiresAt: invitation.expiresAt.toISOString(),
});

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

/**
 * How an invitation reaches its addressee (decision 22): by SMTP, the link
 * seen by nobody but the addressee; or, in the embedded demo only, through
 * the local outbox, the link also shown to whoever invited (`true`), since
 * nobody else would receive it. Any other service without SMTP_URL (a
 * staging start on PostgreSQL, say) refuses before anything is created:
 * showing the link there would let the inviter join as someone else's
 * address. Refused here rather than at start-up, because such a service is
 * right for everything else (payments, API-only nodes); the start-up log and
 * this answer both name SMTP_URL.
 */
export function invitationShowsLink(config: Pick<Config, 'env' | 'database' | 'seedDemo'>, mailer: Pick<Mailer, 'local'>): boolean {
  if (!mailer.local) return false;
  if (isEmbeddedDemo(config)) return true;
  throw operatorRefusal(
    'unavailable',
    'Invitations are mailed to the invited address, and this service has no mail server: its operator must set SMTP_URL (smtp://… or smtps://…) and restart it. Only the embedded demo shows the link instead.',
  );
}

/** The same words whether or not the address has an account: the mail must not tell the inviter anything either. */
export const invitationMail = (organizationName: string, invitation: Invitation, url: string): Mail => ({
  to: invitation.email,
  subject: `You are invited to ${organizationName} on the payments dashboard`,
  text: [
    `You are invited to join ${organizationName} as ${invitation.role}.`,
    '',
    `Open this link to accept (it works once, until ${invitation.expiresAt.toUTCString()}):`,
    url,
    '',
    'If you already have an account with this address, log in with it first. If you did not expect this invitation, ignore this mail.',
  ].join('\n'),
});

export async function revokeInvitation(em: EntityManager, invitationId: string, now: Date) {
  const invitation = await em.findOne(Invitation, { id: invitationId });
  if (!invitation) throw operatorRefusal('not_found', `Invitation ${invitationId} does not exist.`);
  invitation.revokedAt ??= now;
  await em.flush();
  return { id: invitation.id, revoked: true };
}

/** One answer for every unusable token: unknown, used, revoked or expired look alike to whoever holds it. */
const UNUSABLE = 'This invitation link is not valid any more; ask for a new one.';

async function usableInvitation(em: EntityManager, token: string, now: Date): Promise<Invitation> {
  const invitation = await em.findOne(Invitation, { tokenHash: sha256(token) }, { populate: ['organization'] });
  if (!invitation || invitation.acceptedAt || invitation.revokedAt || invitation.expiresAt <= now) throw operatorRefusal('unauthorized', UNUSABLE);
  return invitation;
}

/** What the invitation page shows the link's holder (the addressee): which organization, and whether to log in or choose a password. */
export async function describeInvitation(em: EntityManager, token: string, now: Date) {
  const invitation = await usableInvitation(em, token, now);
  const account = await em.findOne(User, { email: invitation.email });
  return { email: invitation.email, organizationName: invitation.organization.name, role: invitation.role, hasAccount: account !== null };
}

/**
 * Accepts: `signedInUserId` is the caller's dashboard session (null: none).
 * An existing account must be the one signed in; a new address needs the
 * password it chooses. Of two concurrent acceptances exactly one succeeds.
 */
export async function acceptInvitation(em: EntityManager, input: { token: string; password: string | null; signedInUserId: string | null }, now: Date): Promise<User> {
  return em.transactional(async (tx) => {
    const invitation = await usableInvitation(tx, input.token, now);
    // Claimed before anything else: of two concurrent acceptances exactly one changes the row (a refusal below rolls it back).
    const claimed = await tx.nativeUpdate(Invitation, { id: invitation.id, acceptedAt: null }, { acceptedAt: now });
    if (claimed !== 1) throw operatorRefusal('unauthorized', UNUSABLE);
    let user = await tx.findOne(User, { email: invitation.email });
    if (user) {
      if (user.id !== input.signedInUserId || user.disabledAt) {
        throw operatorRefusal('unauthorized', `${invitation.email} already has an account: log in as ${invitation.email}, then open this link again to accept.`);
      }
    } else {
      if (!input.password) throw operatorRefusal('invalid', 'Choose the password of your new account to accept.');
      user = await createUser(tx, { email: invitation.email, password: input.password });
    }
    if (!(await tx.findOne(Membership, { organization: invitation.organization, user }))) {
      tx.create(Membership, { organization: invitation.organization, user, role: invitation.role });
    }
    await tx.flush();
    return user;
  });
}
