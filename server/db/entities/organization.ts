import { defineEntity, p } from '@mikro-orm/core';
import { TEXT_LIMITS } from '../../contract/limits';
import { BILLING_STATUSES } from '../../contract/enums';
import { newId } from '../../contract/ids';

export const OrganizationSchema = defineEntity({
  name: 'Organization',
  tableName: 'organizations',
  properties: {
    id: p.string().primary().onCreate(() => newId('org')),
    name: p.string().length(TEXT_LIMITS.name),
    /** Platform billing state; anything but `active` blocks payment and subscription creation (402). */
    billingStatus: p.enum(BILLING_STATUSES).default('active'),
    /** Monthly transaction quota of the plan; null means unlimited. */
    monthlyTxLimit: p.integer().nullable(),
    /** Members must log in with a second factor to see this organization's data (operator/access.ts). */
    requireSecondFactor: p.boolean().default(false),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class Organization extends OrganizationSchema.class {}
OrganizationSchema.setClass(Organization);
