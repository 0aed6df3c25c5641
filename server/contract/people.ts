/**
 * Words and limits of dashboard users and their roles, shared by the
 * server, its entities and the dashboard's forms (browser-safe: no imports).
 * Not part of /v1.
 */

/** A member's role in one organization, from most to least powerful. */
export const MEMBER_ROLES = ['owner', 'developer', 'viewer'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** Longest e-mail address a person can have (RFC 5321's path limit). */
export const EMAIL_MAX = 254;

/** Long enough to resist guessing with scrypt's cost; bounded so hashing cannot be used to burn CPU. */
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;
