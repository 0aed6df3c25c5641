/**
 * Dashboard log-in, log-out and sessions. `login`, `session` and
 * `acceptInvitation` answer without a session (http/internal-api.ts lets them
 * through); the others act on the caller's own sessions only.
 */
import { operatorRefusal } from '../domain/refusal';
import { acceptInvitation, describeInvitation } from '../domain/people/invitations';
import { createPasswordReset, passwordResetMail, passwordResetUrl, resetPassword } from '../domain/people/password-resets';
import { listSessions, openSession, revokeSession, SESSION_ABSOLUTE_MS, sessionAnswer } from '../domain/people/sessions';
import { DEVICE_TTL_MS, issueDeviceToken, trustedDevice } from '../domain/people/trusted-devices';
import { changeOwnPassword, checkCredentials, loadUser, normalizeEmail, type Client } from '../domain/people/users';
import {
  confirmEnrolment,
  disableSecondFactor,
  hasSecondFactor,
  issueChallenge,
  proveOwnSecondFactor,
  regenerateRecoveryCodes,
  secondFactorStatus,
  setOrganizationRequirement,
  startEnrolment,
  verifyChallenge,
  type SecondFactorProof,
  type WarnOwner,
} from '../domain/people/second-factor';
import { lockMail, unlockCodes, unlockUrl } from '../domain/people/second-factor-ceilings';
import { DashboardSession, Organization, type User } from '../db/entities';
import { organizationAccess } from './access';
import { audited, auditInvitationAccepted } from './audited';
import {
  AcceptInvitationInput,
  ChangePasswordInput,
  ConfirmSecondFactorInput,
  DisableSecondFactorInput,
  InvitationTokenInput,
  LoginInput,
  RegenerateRecoveryCodesInput,
  RequestPasswordResetInput,
  ResetPasswordInput,
  RevokeSessionInput,
  SetOrganizationSecondFactorInput,
  StartSecondFactorInput,
  UnlockSecondFactorCodesInput,
  VerifySecondFactorInput,
} from '../contract/operator/people';
import { operatorProcedure, operatorT as t, type OperatorContext, type WebCaller } from './procedure';

function browser(ctx: OperatorContext): WebCaller {
  if (!ctx.web) throw operatorRefusal('invalid', 'Logging in needs a browser: call this over HTTP.');
  return ctx.web;
}

function signedIn(ctx: OperatorContext): NonNullable<WebCaller['session']> {
  const session = ctx.web?.session;
  if (!session) throw operatorRefusal('invalid', 'Sessions belong to dashboard users; the admin token has none.');
  return session;
}

/** The browser as the log-in throttle sees it when it tries `email`: its address, and its trusted device if it proves one for that e-mail. */
const clientOf = (ctx: OperatorContext, web: WebCaller, email: string): Client => ({
  address: web.address,
  device: trustedDevice(ctx.services.secrets, web.deviceToken, normalizeEmail(email)),
});

/** Mails the owner of an account whose codes wrong guesses just locked, after answering: the mail's delay is not the answer's. */
const warnOwner =
  (ctx: OperatorContext): WarnOwner =>
  (lock) =>
    void ctx.services.mailer.send(lockMail(lock, unlockUrl(ctx.services.publicUrl(), lock.token))).catch((error: unknown) => ctx.log.warn({ err: error }, 'second-factor lock mail not sent'));

/**
 * A new session for the user, its cookie set, and what the dashboard needs to
 * start. The browser becomes a trusted device for this e-mail (its own
 * throttle window) unless it already is one.
 */
async function startSession(ctx: OperatorContext, web: WebCaller, user: User, secondFactorProven = false) {
  const { token, session } = await openSession(ctx.em, user, web.userAgent, ctx.services.now());
  if (secondFactorProven) await ctx.em.nativeUpdate(DashboardSession, { id: session.id }, { secondFactorAt: ctx.services.now() });
  web.setSessionCookie(token, SESSION_ABSOLUTE_MS);
  if (!trustedDevice(ctx.services.secrets, web.deviceToken, user.email)) web.setDeviceCookie(issueDeviceToken(ctx.services.secrets, user.email), DEVICE_TTL_MS);
  return sessionAnswer(ctx.em, user, token);
}

export const authRouter = t.router({
  /**
   * Wrong e-mail or password: 401. Too many failures for this e-mail from this address, or from this address: 429.
   * A right password of a user with a second factor opens no session: it answers a challenge for `verifySecondFactor`.
   */
  login: operatorProcedure.input(LoginInput).mutation(async ({ ctx, input }) => {
    const web = browser(ctx);
    const user = await checkCredentials(ctx.em, ctx.services.loginThrottle, { ...input, client: clientOf(ctx, web, input.email) });
    if (hasSecondFactor(user)) return issueChallenge(ctx.em, user, ctx.services.now());
    return startSession(ctx, web, user);
  }),

  /**
   * The log-in's second step: the challenge and a code (or a recovery code, then spent) open the session.
   * Wrong codes count in the log-in throttle (429); an expired or spent challenge: 401.
   * Ten codes on one challenge and it is dead (401); twenty wrong codes on the account in an hour and codes are
   * refused for it (429, the code unchecked) until the hour passes or its owner follows the mailed link.
   */
  verifySecondFactor: operatorProcedure.input(VerifySecondFactorInput).mutation(async ({ ctx, input }) => {
    const web = browser(ctx);
    const proof: SecondFactorProof = 'code' in input ? { code: input.code } : { recoveryCode: input.recoveryCode };
    const verified = await verifyChallenge(ctx.em, ctx.services.secrets, ctx.services.loginThrottle, { challenge: input.challenge, proof, client: (email) => clientOf(ctx, web, email) }, ctx.services.now(), warnOwner(ctx));
    const answer = await startSession(ctx, web, verified.user, true);
    return { ...answer, method: verified.method, recoveryCodesLeft: verified.recoveryCodesLeft };
  }),

  /** The caller's second factor: on or off, and how many recovery codes are left. */
  secondFactor: operatorProcedure.query(async ({ ctx }) => secondFactorStatus(await loadUser(ctx.em, signedIn(ctx).userId))),

  /** Starts enrolling an authenticator app, after the password: the secret (for the QR code and typing in), pending until confirmed. */
  startSecondFactor: operatorProcedure.input(StartSecondFactorInput).mutation(async ({ ctx, input }) => {
    const userId = signedIn(ctx).userId;
    const email = (await loadUser(ctx.em, userId)).email;
    const start = { userId, password: input.password, client: clientOf(ctx, browser(ctx), email) };
    return audited(ctx, async (em, audit) => {
      const answer = await startEnrolment(em, ctx.services.secrets, ctx.services.loginThrottle, start);
      audit({ action: 'user.second_factor_enrolment_started', organizationId: null, target: { type: 'user', id: userId }, before: null, after: { pending: true } });
      return answer;
    });
  }),

  /** Confirms with a current code: the second factor is on; the ten recovery codes are answered this once; other sessions end. */
  confirmSecondFactor: operatorProcedure.input(ConfirmSecondFactorInput).mutation(async ({ ctx, input }) => {
    const session = signedIn(ctx);
    const web = browser(ctx);
    const email = (await loadUser(ctx.em, session.userId)).email;
    const confirm = { userId: session.userId, code: input.code, sessionId: session.id, client: clientOf(ctx, web, email) };
    return audited(ctx, async (em, audit) => {
      const answer = await confirmEnrolment(em, ctx.services.secrets, ctx.services.loginThrottle, confirm, ctx.services.now());
      audit({ action: 'user.second_factor_enabled', organizationId: null, target: { type: 'user', id: session.userId }, before: { secondFactor: false }, after: { secondFactor: true, recoveryCodes: answer.recoveryCodes.length } });
      return answer;
    });
  }),

  /** Turns the second factor off: the password, and a current code or a recovery code. */
  disableSecondFactor: operatorProcedure.input(DisableSecondFactorInput).mutation(async ({ ctx, input }) => {
    const session = signedIn(ctx);
    const web = browser(ctx);
    const email = (await loadUser(ctx.em, session.userId)).email;
    const proof: SecondFactorProof = 'code' in input ? { code: input.code } : { recoveryCode: input.recoveryCode };
    const disable = { userId: session.userId, password: input.password, proof, client: clientOf(ctx, web, email) };
    await proveOwnSecondFactor(ctx.em, ctx.services.secrets, ctx.services.loginThrottle, disable, ctx.services.now(), warnOwner(ctx));
    return audited(ctx, async (em, audit) => {
      const answer = await disableSecondFactor(em, session.userId);
      audit({ action: 'user.second_factor_disabled', organizationId: null, target: { type: 'user', id: session.userId }, before: { secondFactor: true }, after: { secondFactor: false } });
      return answer;
    });
  }),

  /** Ten new recovery codes, answered this once; the old ones stop working. Needs a current code. */
  regenerateRecoveryCodes: operatorProcedure.input(RegenerateRecoveryCodesInput).mutation(async ({ ctx, input }) => {
    const session = signedIn(ctx);
    const web = browser(ctx);
    const email = (await loadUser(ctx.em, session.userId)).email;
    const regenerate = { userId: session.userId, proof: { code: input.code }, client: clientOf(ctx, web, email) };
    await proveOwnSecondFactor(ctx.em, ctx.services.secrets, ctx.services.loginThrottle, regenerate, ctx.services.now(), warnOwner(ctx));
    return audited(ctx, async (em, audit) => {
      const answer = await regenerateRecoveryCodes(em, session.userId);
      audit({ action: 'user.recovery_codes_regenerated', organizationId: null, target: { type: 'user', id: session.userId }, before: null, after: { recoveryCodes: answer.recoveryCodes.length } });
      return answer;
    });
  }),

  /**
   * An owner requires (or stops requiring) a second factor of the organization's members.
   * Turning it on needs one yourself: you would lock yourself out.
   */
  setOrganizationSecondFactor: operatorProcedure.input(SetOrganizationSecondFactorInput).mutation(async ({ ctx, input }) => {
    const found = await organizationAccess(ctx, input.organizationId, 'own');
    const actorUserId = ctx.actor.kind === 'member' ? ctx.actor.userId : null;
    return audited(ctx, async (em, audit) => {
      const organization = await em.findOneOrFail(Organization, { id: found.id });
      const before = { requireSecondFactor: organization.requireSecondFactor };
      const answer = await setOrganizationRequirement(em, organization, input.required, actorUserId);
      audit({ action: 'organization.second_factor_requirement_changed', organizationId: organization.id, target: { type: 'organization', id: organization.id }, before, after: { requireSecondFactor: input.required } });
      return answer;
    });
  }),

  /** Who is logged in (with a fresh CSRF token), or null: how the dashboard starts after a reload. */
  session: operatorProcedure.query(async ({ ctx }) => {
    const session = ctx.web?.session;
    if (!session) return null;
    return sessionAnswer(ctx.em, await loadUser(ctx.em, session.userId), session.token);
  }),

  logout: operatorProcedure.mutation(async ({ ctx }) => {
    const session = ctx.web?.session;
    if (session) await revokeSession(ctx.em, session.userId, session.id, ctx.services.now());
    ctx.web?.clearSessionCookie();
    return { loggedOut: true };
  }),

  /** The caller's live sessions, the current one marked. */
  sessions: operatorProcedure.query(({ ctx }) => {
    const session = signedIn(ctx);
    return listSessions(ctx.em, session.userId, session.id, ctx.services.now());
  }),

  /** Ends one of the caller's sessions (another user's is not found); ending the current one logs out. */
  revokeSession: operatorProcedure.input(RevokeSessionInput).mutation(async ({ ctx, input }) => {
    const session = signedIn(ctx);
    const result = await revokeSession(ctx.em, session.userId, input.sessionId, ctx.services.now());
    if (input.sessionId === session.id) ctx.web?.clearSessionCookie();
    return result;
  }),

  /** Ends the caller's other sessions too. */
  changePassword: operatorProcedure.input(ChangePasswordInput).mutation(async ({ ctx, input }) => {
    const session = signedIn(ctx);
    const web = browser(ctx);
    const email = (await loadUser(ctx.em, session.userId)).email;
    const change = { userId: session.userId, currentPassword: input.currentPassword, newPassword: input.newPassword, sessionId: session.id, client: clientOf(ctx, web, email) };
    await changeOwnPassword(ctx.em, ctx.services.loginThrottle, change, ctx.services.now());
    return { changed: true };
  }),

  /** What an invitation link offers its holder: the organization, the role, and whether to log in first or choose a password. */
  invitation: operatorProcedure.input(InvitationTokenInput).query(({ ctx, input }) => describeInvitation(ctx.em, input.token, ctx.services.now())),

  /**
   * Joins the organization: a new address with the password it chooses (and
   * logs in), an existing account only logged in as that account.
   */
  acceptInvitation: operatorProcedure.input(AcceptInvitationInput).mutation(async ({ ctx, input }) => {
    const web = browser(ctx);
    const session = web.session;
    const user = await ctx.em.transactional(async (tx) => {
      const accepted = await acceptInvitation(tx, { token: input.token, password: input.password ?? null, signedInUserId: session?.userId ?? null }, ctx.services.now());
      await auditInvitationAccepted(ctx, tx, accepted);
      return accepted;
    });
    return session ? sessionAnswer(ctx.em, user, session.token) : startSession(ctx, web, user);
  }),

  /**
   * Mails a reset link to the address if it has an account. The answer, and
   * its timing, are the same either way: the work is done after answering.
   * Counted like log-in attempts (per address and e-mail), so nobody can flood a mailbox.
   */
  requestPasswordReset: operatorProcedure.input(RequestPasswordResetInput).mutation(async ({ ctx, input }) => {
    const web = browser(ctx);
    const email = normalizeEmail(input.email);
    const wait = await ctx.services.loginThrottle.attempt({ email: `reset:${email}`, address: web.address, device: null });
    if (wait > 0) throw operatorRefusal('rate_limited', `Too many reset requests; try again in ${Math.ceil(wait / 60)} minute(s).`, wait);
    const { services } = ctx;
    const em = ctx.em.fork();
    void (async () => {
      const reset = await createPasswordReset(em, email, services.now());
      if (reset) await services.mailer.send(passwordResetMail(reset.user.email, passwordResetUrl(services.publicUrl(), reset.token), reset.expiresAt));
    })().catch((error: unknown) => ctx.log.warn({ err: error }, 'password reset mail not sent'));
    return { requested: true };
  }),

  /** The link mailed when wrong codes locked an account: codes are accepted again at once. Single use; needs no session. */
  unlockSecondFactorCodes: operatorProcedure.input(UnlockSecondFactorCodesInput).mutation(async ({ ctx, input }) => {
    await unlockCodes(ctx.em, input.token, ctx.services.now());
    return { unlocked: true };
  }),

  /** Sets a new password from a reset link; every session of the user ends, and the user logs in again. */
  resetPassword: operatorProcedure.input(ResetPasswordInput).mutation(async ({ ctx, input }) => {
    await resetPassword(ctx.em, input, ctx.services.now());
    return { reset: true };
  }),
});
