import { defineEntity, p } from '@mikro-orm/core';
import { Organization } from './organization';

/**
 * The base of an organization's monthly count (UTC calendar month): the
 * transactions counted before per-payment usage rows existed, or an
 * operator's adjustment. It is no longer written per payment (that made it a
 * hot row every create of the organization queued behind): `used` is this
 * base plus the period's `transaction_usage` rows.
 */
export const MonthlyUsageSchema = defineEntity({
  name: 'MonthlyUsage',
  tableName: 'monthly_usage',
  primaryKeys: ['organization', 'period'],
  properties: {
    organization: () => p.manyToOne(Organization).primary(),
    /** `YYYY-MM` in UTC. */
    period: p.string().length(7).primary(),
    transactions: p.integer().default(0),
  },
});

export class MonthlyUsage extends MonthlyUsageSchema.class {}
MonthlyUsageSchema.setClass(MonthlyUsage);
