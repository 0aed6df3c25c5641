import { defineEntity, p } from '@mikro-orm/core';
import { EMAIL_MAX, MEMBER_ROLES } from '../../contract/people';
import { newId } from '../../contract/ids';
import { Organization } from './organization';
import { User } from './user';

/**
 * An invitation to join an organization with a role. The link's token is
 * shown once to the owner who invites; only its SHA-256 is stored. Single
 * use, and it expires.
 */
export const InvitationSchema = defineEntity({
  name: 'Invitation',
  tableName: 'invitations',
  indexes: [{ properties: ['organization', 'acceptedAt'] }],
  properties: {
    id: p.string().primary().onCreate(() => newId('inv')),
    organization: () => p.manyToOne(Organization),
    email: p.string().length(EMAIL_MAX),
    role: p.enum(MEMBER_ROLES),
    tokenHash: p.string().length(64).unique(),
    invitedBy: () => p.manyToOne(User).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime(),
    acceptedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  },
});

export class Invitation extends InvitationSchema.class {}
InvitationSchema.setClass(Invitation);
