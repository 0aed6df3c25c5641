import { defineEntity, p } from '@mikro-orm/core';
import { Organization } from './organization';

/**
 * Transactions created by an organization in one calendar month (UTC), the
 * `used` of the monthly quota. Incremented in the same flush that creates a
 * payment, so the count can never drift from what was actually created.
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
