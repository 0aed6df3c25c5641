/**
 * Inputs of log-in, sessions, members and users. Browser-safe (zod and the
 * contract only), so the dashboard's forms validate with these schemas.
 */
import { z } from 'zod';
import { EMAIL_MAX, MEMBER_ROLES, PASSWORD_MAX, PASSWORD_MIN } from '../../contract/people';
import { RecordId, text } from '../../contract/schemas/text';

/** Trimmed and lower-cased first: one address, one user, however it is typed. */
export const Email = z
  .string()
  .trim()
  .toLowerCase()
  .max(EMAIL_MAX, { message: `must be at most ${EMAIL_MAX} characters` })
  .pipe(z.email({ message: 'must be an e-mail address' }));

/** A password being chosen: long enough, bounded (hashing is deliberately costly). */
export const NewPassword = z
  .string()
  .min(PASSWORD_MIN, { message: `must be at least ${PASSWORD_MIN} characters` })
  .max(PASSWORD_MAX, { message: `must be at most ${PASSWORD_MAX} characters` });

/** A password being checked: any length the user once chose, within the same bound. */
const Password = z.string().min(1, { message: 'must not be empty' }).max(PASSWORD_MAX, { message: `must be at most ${PASSWORD_MAX} characters` });

export const Role = z.enum(MEMBER_ROLES);

/** What an invitation or password-reset link's fragment holds. */
const LinkToken = text({ min: 1, max: 128 });

export const LoginInput = z.strictObject({ email: Email, password: Password });
/** `password`: the new account's, for an address without one; an existing account accepts logged in, without it. */
export const AcceptInvitationInput = z.strictObject({ token: LinkToken, password: NewPassword.optional() });
export const InvitationTokenInput = z.strictObject({ token: LinkToken });
export const RequestPasswordResetInput = z.strictObject({ email: Email });
export const ResetPasswordInput = z.strictObject({ token: LinkToken, password: NewPassword });
export const AddMemberInput = z.strictObject({ organizationId: RecordId, email: Email, role: Role });
export const RevokeSessionInput = z.strictObject({ sessionId: RecordId });
export const ChangePasswordInput = z.strictObject({ currentPassword: Password, newPassword: NewPassword });

export const OrganizationRef = z.strictObject({ organizationId: RecordId });
export const InviteMemberInput = z.strictObject({ organizationId: RecordId, email: Email, role: Role });
export const SetMemberRoleInput = z.strictObject({ organizationId: RecordId, userId: RecordId, role: Role });
export const RemoveMemberInput = z.strictObject({ organizationId: RecordId, userId: RecordId });
export const RevokeInvitationInput = z.strictObject({ organizationId: RecordId, invitationId: RecordId });

export const CreateUserInput = z.strictObject({ email: Email, password: NewPassword, platformOperator: z.boolean().default(false) });
export const SetUserDisabledInput = z.strictObject({ userId: RecordId, disabled: z.boolean() });
