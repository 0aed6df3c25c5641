import { defineEntity, p } from '@mikro-orm/core';
import { EMAIL_MAX } from '../../contract/people';
import { newId } from '../../contract/ids';

/**
 * A person who logs in to the dashboard. The password is kept only as a
 * scrypt hash with its parameters (domain/people/passwords.ts); what they may
 * do is in their memberships, or everything when `platformOperator`.
 */
export const UserSchema = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p.string().primary().onCreate(() => newId('usr')),
    /** Lower-cased and trimmed, so one address is one user. */
    email: p.string().length(EMAIL_MAX).unique(),
    /** `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>`: the parameters travel with the hash so they can rise later. */
    passwordHash: p.string().length(255),
    platformOperator: p.boolean().default(false),
    /** A disabled user cannot log in and their sessions are revoked. */
    disabledAt: p.datetime().nullable(),
    passwordChangedAt: p.datetime().onCreate(() => new Date()),
    /** The confirmed TOTP secret, sealed (domain/secret-box.ts); null: no second factor. */
    secondFactorSealed: p.text().nullable(),
    /** A secret being enrolled, sealed, until a code from it is confirmed. */
    secondFactorPendingSealed: p.text().nullable(),
    /** When the second factor was confirmed: sessions verified before it do not count. */
    secondFactorEnabledAt: p.datetime().nullable(),
    /** The last TOTP time step accepted: a code of that step or earlier is never accepted again (replay). */
    secondFactorLastStep: p.bigint('number').nullable(),
    /** SHA-256 of each unused recovery code. */
    recoveryCodeHashes: p.json<string[]>().nullable(),
    /** SHA-256 of the pending log-in challenge (right password, code not yet given): single use. */
    secondFactorChallengeHash: p.string().length(64).nullable(),
    secondFactorChallengeExpiresAt: p.datetime().nullable(),
    /** Codes tried on the pending challenge (domain/people/second-factor-ceilings.ts): at the ceiling it is dead. */
    secondFactorChallengeCodes: p.integer().default(0),
    /** Codes counted against the account in its hour window (a right one is given back), and when that window began. */
    secondFactorFailures: p.integer().default(0),
    secondFactorFailuresSince: p.datetime().nullable(),
    /** When the owner was warned of the current lock: once per lock. */
    secondFactorLockMailedAt: p.datetime().nullable(),
    /** SHA-256 of the mailed link that frees a locked account's codes: single use, expiring. */
    secondFactorUnlockHash: p.string().length(64).nullable().unique(),
    secondFactorUnlockExpiresAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class User extends UserSchema.class {}
UserSchema.setClass(User);
