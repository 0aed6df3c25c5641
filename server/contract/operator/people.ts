/**
 * Inputs of log-in, sessions, members and users. Browser-safe (zod and the
 * contract only), so the dashboard's forms validate with these schemas.
 */
import { z } from 'zod';
import { EMAIL_MAX, MEMBER_ROLES, PASSWORD_MAX, PASSWORD_MIN } from '../people';
import { RecordId, text } from '../schemas/text';

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

/** What an invitation, password-reset or unlock link's fragment holds. */
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

/** A code from an authenticator app: the 6 digits it shows (spaces as some apps group them are dropped). */
export const TotpCode = z
  .string()
  .transform((value) => value.replace(/\s/g, ''))
  .pipe(z.string().regex(/^\d{6}$/, { message: 'must be the 6 digits your authenticator app shows' }));
/** A recovery code as printed (`abcde-fghij`); case, spaces and dashes do not matter. */
export const RecoveryCode = z.string().trim().min(1, { message: 'must not be empty' }).max(32, { message: 'must be at most 32 characters' });
/** The second step of a log-in: the challenge `auth.login` answered, and a code from the app or a recovery code. */
export const VerifySecondFactorInput = z.union([
  z.strictObject({ challenge: text({ min: 1, max: 128 }), code: TotpCode }),
  z.strictObject({ challenge: text({ min: 1, max: 128 }), recoveryCode: RecoveryCode }),
]);
/** Enrolling (or, after turning it off, replacing) a second factor: the password again. */
export const StartSecondFactorInput = z.strictObject({ password: Password });
export const ConfirmSecondFactorInput = z.strictObject({ code: TotpCode });
export const RegenerateRecoveryCodesInput = z.strictObject({ code: TotpCode });
/** Turning the second factor off: the password, and a current code or a recovery code. */
export const DisableSecondFactorInput = z.union([
  z.strictObject({ password: Password, code: TotpCode }),
  z.strictObject({ password: Password, recoveryCode: RecoveryCode }),
]);
/** The link mailed when wrong codes locked an account's codes. */
export const UnlockSecondFactorCodesInput = z.strictObject({ token: LinkToken });
export const SetOrganizationSecondFactorInput = z.strictObject({ organizationId: RecordId, required: z.boolean() });
export const ResetSecondFactorInput = z.strictObject({ email: Email });
