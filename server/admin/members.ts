/**
 * Members of an organization and their roles (owners manage them; every
 * member sees them), and the platform's users (operators only).
 */
import { createInvitation, invitationUrl, revokeInvitation } from '../domain/people/invitations';
import { addMember, listMembers, removeMember, setMemberRole } from '../domain/people/members';
import { createUser, listUsers, normalizeEmail, setUserDisabled, userView } from '../domain/people/users';
import { Invitation, User } from '../db/entities';
import { notFound } from '../domain/operator-errors';
import { organizationAccess, requireOperator } from './access';
import { CreateUserInput, InviteMemberInput, OrganizationRef, RemoveMemberInput, RevokeInvitationInput, SetMemberRoleInput, SetUserDisabledInput } from './inputs/people';
import { adminProcedure, adminT as t } from './procedure';

export const membersRouter = t.router({
  /** `{members, invitations}`: the members with their roles, and the invitations not yet accepted. */
  list: adminProcedure.input(OrganizationRef).query(async ({ ctx, input }) => {
    await organizationAccess(ctx, input.organizationId, 'read');
    return listMembers(ctx.em, input.organizationId, ctx.services.now());
  }),

  /**
   * An existing user joins at once (`member`); anyone else gets an invitation
   * link (`invitationUrl`), shown in this answer only.
   */
  invite: adminProcedure.input(InviteMemberInput).mutation(async ({ ctx, input }) => {
    const organization = await organizationAccess(ctx, input.organizationId, 'own');
    const existing = await ctx.em.findOne(User, { email: normalizeEmail(input.email) });
    if (existing) return { invitationUrl: null, member: await addMember(ctx.em, organization, existing, input.role), invitation: null };
    const { invitation, token } = await createInvitation(ctx.em, { organization, email: input.email, role: input.role, invitedBy: ctx.actor.userId }, ctx.services.now());
    return {
      invitationUrl: invitationUrl(ctx.services.publicUrl(), token),
      member: null,
      invitation: { id: invitation.id, email: invitation.email, role: invitation.role, expiresAt: invitation.expiresAt.toISOString() },
    };
  }),

  revokeInvitation: adminProcedure.input(RevokeInvitationInput).mutation(async ({ ctx, input }) => {
    await organizationAccess(ctx, input.organizationId, 'own');
    if (!(await ctx.em.findOne(Invitation, { id: input.invitationId, organization: input.organizationId }))) throw notFound('Invitation', input.invitationId);
    return revokeInvitation(ctx.em, input.invitationId, ctx.services.now());
  }),

  /** Never leaves the organization without an owner (409). */
  setRole: adminProcedure.input(SetMemberRoleInput).mutation(async ({ ctx, input }) => {
    await organizationAccess(ctx, input.organizationId, 'own');
    return setMemberRole(ctx.em, input.organizationId, input.userId, input.role);
  }),

  /** Never the last owner (409). */
  remove: adminProcedure.input(RemoveMemberInput).mutation(async ({ ctx, input }) => {
    await organizationAccess(ctx, input.organizationId, 'own');
    return removeMember(ctx.em, input.organizationId, input.userId);
  }),
});

export const usersRouter = t.router({
  /** Operator only (also `payments-admin users create`): the first operator, or a user to add to organizations. */
  create: adminProcedure.input(CreateUserInput).mutation(async ({ ctx, input }) => {
    requireOperator(ctx.actor);
    return userView(await createUser(ctx.em, input));
  }),

  list: adminProcedure.query(({ ctx }) => {
    requireOperator(ctx.actor);
    return listUsers(ctx.em);
  }),

  /** Disabling ends the user's sessions at once. */
  setDisabled: adminProcedure.input(SetUserDisabledInput).mutation(({ ctx, input }) => {
    requireOperator(ctx.actor);
    return setUserDisabled(ctx.em, input.userId, input.disabled, ctx.services.now());
  }),
});
