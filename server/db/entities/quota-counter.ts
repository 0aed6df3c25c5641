import { defineEntity, p } from '@mikro-orm/core';
import { Organization } from './organization';

/**
 * The monthly quota's admission counter of an organization with a limit: the
 * payments admitted in the period, registered or still in flight. Changed
 * only by single conditional statements outside any longer transaction
 * (domain/quota.ts), so a create holds its row for one statement, never
 * across a gateway call. Absent until the first admission of the period,
 * then seeded from the exact count.
 */
export const QuotaCounterSchema = defineEntity({
  name: 'QuotaCounter',
  tableName: 'quota_counters',
  primaryKeys: ['organization', 'period'],
  properties: {
    organization: () => p.manyToOne(Organization).primary(),
    /** `YYYY-MM` in UTC. */
    period: p.string().length(7).primary(),
    /** Made anew each time the counter is seeded: an admission is given back only to the counter that counted it. */
    generation: p.string().length(32),
    admitted: p.integer(),
    /** When the last admission was counted: a counter untouched for longer than a registration can take may be reconciled. */
    lastAdmitAt: p.datetime(),
  },
});

export class QuotaCounter extends QuotaCounterSchema.class {}
QuotaCounterSchema.setClass(QuotaCounter);
