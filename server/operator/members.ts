/**
 * Members of an organization and their roles (owners manage them; every
 * member sees them), and the platform's users (operators only).
 */
import { createInvitation, invitationMail, invitationShowsLink, invitationUrl, invitationView, revokeInvitation } from '../domain/people/invitations';
import { addMember, listMembers, removeMember, setMemberRole } from '../domain/people/members';
import { createUser, listUsers, normalizeEmail, setUserDisabled, userView } from '../domain/people/users';
import { resetSecondFactorProcedure } from './second-factor-reset';
import { isEmbeddedDemo } from '../config';
import { Invitation, User } from '../db/entities';
import { notFound, operatorRefusal } from '../domain/refusal';
import { organizationAccess, requireOperator } from './access';
import { AddMemberInput, CreateUserInput, InviteMemberInput, OrganizationRef, RemoveMemberInput, RevokeInvitationInput, SetMemberRoleInput, SetUserDisabledInput } from '../contract/operator/people';
import { operatorProcedure, operatorT as t } from './procedure';
import { invitationBefore, memberBefore, userBefore } from '../domain/audit/snapshots';
import { audited } from './audited';

export const membersRouter = t.router({
  /** `{members, invitations}`: the members with their roles, and the invitations not yet accepted. */
  list: operatorProcedure.input(OrganizationRef).query(async ({ ctx, input }) => {
    await organizationAccess(ctx, input.organizationId, 'read');
    return listMembers(ctx.em, input.organizationId, ctx.services.now());
  }),

  /**
   * Mails an invitation to the address; nobody joins until they accept. The
   * answer is the same whether or not the address has an account (it tells
   * nothing about who is registered). `mailed` false: the mail could not be
   * handed over (the invitation stands; revoke it and invite again).
   * `invitationUrl` only in the embedded demo without SMTP, where nobody else
   * would receive it; any other service without SMTP_URL refuses (412
   * unavailable, naming SMTP_URL). Counted per organization and per invited
   * address before anything is looked up (429 with Retry-After), alike for
   * every address.
   */
  invite: operatorProcedure.input(InviteMemberInput).mutation(async ({ ctx, input }) => {
    const organization = await organizationAccess(ctx, input.organizationId, 'own');
    const showLink = invitationShowsLink(ctx.services.config, ctx.services.mailer);
    const wait = await ctx.services.loginThrottle.invitation(organization.id, normalizeEmail(input.email));
    if (wait > 0) throw operatorRefusal('rate_limited', `Too many invitations from this organization or to this address; try again in ${Math.ceil(wait / 60)} minute(s).`, wait);
    const { invitation, token } = await audited(ctx, async (em, audit) => {
      const created = await createInvitation(em, { organization, email: input.email, role: input.role, invitedBy: ctx.actor.userId }, ctx.services.now());
      audit({ action: 'member.invited', organizationId: organization.id, target: { type: 'invitation', id: created.invitation.id }, before: null, after: invitationView(created.invitation) });
      return created;
    });
    const url = invitationUrl(ctx.services.publicUrl(), token);
    let mailed = true;
    try {
      await ctx.services.mailer.send(invitationMail(organization.name, invitation, url));
    } catch (error) {
      mailed = false;
      ctx.log.warn({ err: error, invitationId: invitation.id }, 'invitation mail not sent');
    }
    return { invitation: invitationView(invitation), mailed, invitationUrl: showLink ? url : null };
  }),

  /** Operator only (CLI `users add-member`): adds an existing user at once, for onboarding by the platform's own people. */
  add: operatorProcedure.input(AddMemberInput).mutation(async ({ ctx, input }) => {
    requireOperator(ctx.actor);
    const organization = await organizationAccess(ctx, input.organizationId, 'own');
    const user = await ctx.em.findOne(User, { email: normalizeEmail(input.email) });
    if (!user) throw notFound('User', normalizeEmail(input.email));
    return audited(ctx, async (em, audit) => {
      const after = await addMember(em, organization, user, input.role);
      audit({ action: 'member.added', organizationId: organization.id, target: { type: 'user', id: user.id }, before: null, after });
      return after;
    });
  }),

  revokeInvitation: operatorProcedure.input(RevokeInvitationInput).mutation(async ({ ctx, input }) => {
    await organizationAccess(ctx, input.organizationId, 'own');
    if (!(await ctx.em.findOne(Invitation, { id: input.invitationId, organization: input.organizationId }))) throw notFound('Invitation', input.invitationId);
    return audited(ctx, async (em, audit) => {
      const before = await invitationBefore(em, input.invitationId);
      const answer = await revokeInvitation(em, input.invitationId, ctx.services.now());
      audit({ action: 'member.invitation_revoked', organizationId: input.organizationId, target: { type: 'invitation', id: input.invitationId }, before, after: await invitationBefore(em, input.invitationId) });
      return answer;
    });
  }),

  /** Never leaves the organization without an owner (409). */
  setRole: operatorProcedure.input(SetMemberRoleInput).mutation(async ({ ctx, input }) => {
    await organizationAccess(ctx, input.organizationId, 'own');
    return audited(ctx, async (em, audit) => {
      const before = await memberBefore(em, input.organizationId, input.userId);
      const after = await setMemberRole(em, input.organizationId, input.userId, input.role);
      audit({ action: 'member.role_changed', organizationId: input.organizationId, target: { type: 'user', id: input.userId }, before, after });
      return after;
    });
  }),

  /** Never the last owner (409). */
  remove: operatorProcedure.input(RemoveMemberInput).mutation(async ({ ctx, input }) => {
    await organizationAccess(ctx, input.organizationId, 'own');
    return audited(ctx, async (em, audit) => {
      const before = await memberBefore(em, input.organizationId, input.userId);
      const answer = await removeMember(em, input.organizationId, input.userId);
      audit({ action: 'member.removed', organizationId: input.organizationId, target: { type: 'user', id: input.userId }, before, after: null });
      return answer;
    });
  }),
});

export const usersRouter = t.router({
  /** Operator only (also `payments-admin users create`): the first operator, or a user to add to organizations. */
  create: operatorProcedure.input(CreateUserInput).mutation(async ({ ctx, input }) => {
    requireOperator(ctx.actor);
    return audited(ctx, async (em, audit) => {
      const after = userView(await createUser(em, input));
      audit({ action: 'user.created', organizationId: null, target: { type: 'user', id: after.id }, before: null, after });
      return after;
    });
  }),

  list: operatorProcedure.query(({ ctx }) => {
    requireOperator(ctx.actor);
    return listUsers(ctx.em);
  }),

  /**
   * Operator only: the mails of the local outbox, newest first, so the
   * embedded demo's invitations and resets can be read in the dashboard.
   * Only there (decision 22): on any other service without SMTP_URL the
   * outbox holds people's password-reset and unlock links, which an operator
   * must not be handed (they would act as that person); those mails stay in
   * DATA_DIR/outbox on the host. `local` false: nothing is shown.
   */
  outbox: operatorProcedure.query(({ ctx }) => {
    requireOperator(ctx.actor);
    const shown = ctx.services.mailer.local && isEmbeddedDemo(ctx.services.config);
    return { local: shown, mails: shown ? ctx.services.mailer.recent(50) : [] };
  }),

  resetSecondFactor: resetSecondFactorProcedure,

  /** Disabling ends the user's sessions at once. */
  setDisabled: operatorProcedure.input(SetUserDisabledInput).mutation(({ ctx, input }) => {
    requireOperator(ctx.actor);
    return audited(ctx, async (em, audit) => {
      const before = await userBefore(em, input.userId);
      const after = await setUserDisabled(em, input.userId, input.disabled, ctx.services.now());
      audit({ action: input.disabled ? 'user.disabled' : 'user.enabled', organizationId: null, target: { type: 'user', id: after.id }, before, after });
      return after;
    });
  }),
});
