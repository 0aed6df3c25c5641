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
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class User extends UserSchema.class {}
UserSchema.setClass(User);
