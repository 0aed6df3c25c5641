import { defineEntity, p } from '@mikro-orm/core';
import { MEMBER_ROLES } from '../../contract/people';
import { newId } from '../../contract/ids';
import { Organization } from './organization';
import { User } from './user';

/** A user's one role in one organization. */
export const MembershipSchema = defineEntity({
  name: 'Membership',
  tableName: 'memberships',
  uniques: [{ properties: ['user', 'organization'] }],
  indexes: [{ properties: ['organization'] }],
  properties: {
    id: p.string().primary().onCreate(() => newId('mbr')),
    user: () => p.manyToOne(User),
    organization: () => p.manyToOne(Organization),
    role: p.enum(MEMBER_ROLES),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class Membership extends MembershipSchema.class {}
MembershipSchema.setClass(Membership);
