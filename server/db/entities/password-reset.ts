import { defineEntity, p } from '@mikro-orm/core';
import { newId } from '../../contract/ids';
import { User } from './user';

/**
 * A "forgot password" link, mailed to the account's address: only the
 * token's SHA-256 is stored. Single use, expires after an hour; a new
 * request, or a reset, ends the user's other links.
 */
export const PasswordResetSchema = defineEntity({
  name: 'PasswordReset',
  tableName: 'password_resets',
  properties: {
    id: p.string().primary().onCreate(() => newId('pwr')),
    user: () => p.manyToOne(User),
    tokenHash: p.string().length(64).unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
  },
});

export class PasswordReset extends PasswordResetSchema.class {}
PasswordResetSchema.setClass(PasswordReset);
