/**
 * Who belongs to an organization, with which role. An organization always
 * keeps at least one owner: the last one can be neither demoted nor removed
 * (checked under the organization's row lock, so two owners demoting each
 * other at once cannot both succeed).
 */
import { LockMode } from '@mikro-orm/core';
import type { MemberRole } from '../../contract/people';
import { Invitation, Membership, Organization, User } from '../../db/entities';
import type { EntityManager } from '../../db/orm';
import { notFound, operatorRefusal } from '../refusal';

export const memberView = (membership: Membership & { user: User }) => ({
  userId: membership.user.id,
  email: membership.user.email,
  role: membership.role,
  joinedAt: membership.createdAt.toISOString(),
});

export async function listMembers(em: EntityManager, organizationId: string, now: Date) {
  const memberships = await em.find(Membership, { organization: organizationId }, { populate: ['user'], orderBy: { createdAt: 'asc', id: 'asc' } });
  const invitations = await em.find(
    Invitation,
    { organization: organizationId, acceptedAt: null, revokedAt: null, expiresAt: { $gt: now } },
    { orderBy: { createdAt: 'asc', id: 'asc' } },
  );
  return {
    members: memberships.map((membership) => memberView(membership as Membership & { user: User })),
    invitations: invitations.map((invitation) => ({
      id: invitation.id,
      email: invitation.email,
      role: invitation.role,
      createdAt: invitation.createdAt.toISOString(),
      expiresAt: invitation.expiresAt.toISOString(),
    })),
  };
}

export async function addMember(em: EntityManager, organization: Organization, user: User, role: MemberRole) {
  if (await em.findOne(Membership, { organization, user })) throw operatorRefusal('conflict', `${user.email} is already a member of this organization.`);
  const membership = em.create(Membership, { organization, user, role });
  await em.flush();
  return memberView(membership as Membership & { user: User });
}

/** Runs `change` on the membership under the organization's lock, refusing anything that leaves no owner. */
async function changeMembership(em: EntityManager, organizationId: string, userId: string, next: MemberRole | null) {
  return em.transactional(async (tx) => {
    await tx.findOne(Organization, { id: organizationId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const membership = await tx.findOne(Membership, { organization: organizationId, user: userId }, { populate: ['user'] });
    if (!membership) throw notFound('Member', userId);
    if (membership.role === 'owner' && next !== 'owner') {
      const owners = await tx.count(Membership, { organization: organizationId, role: 'owner' });
      if (owners <= 1) {
        throw operatorRefusal('conflict', 'This is the organization\'s last owner: make another member owner first.');
      }
    }
    if (next === null) {
      tx.remove(membership);
      return { userId, removed: true as const };
    }
    membership.role = next;
    return memberView(membership as Membership & { user: User });
  });
}

export const setMemberRole = (em: EntityManager, organizationId: string, userId: string, role: MemberRole) => changeMembership(em, organizationId, userId, role);
export const removeMember = (em: EntityManager, organizationId: string, userId: string) => changeMembership(em, organizationId, userId, null);
