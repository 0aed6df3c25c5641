import { defineEntity, p } from '@mikro-orm/core';

/**
 * Which create of an externalId holds the quota admission for it
 * (domain/quota.ts): concurrent creates of one externalId are one payment,
 * so only the first is counted and the others wait for its payment. Kept
 * until the month is over (removed when the next month's counter is seeded),
 * or removed when its create gives the admission back.
 */
export const QuotaClaimSchema = defineEntity({
  name: 'QuotaClaim',
  tableName: 'quota_claims',
  primaryKeys: ['environmentId', 'externalId'],
  indexes: [{ properties: ['organizationId', 'period'] }],
  properties: {
    environmentId: p.string().length(255).primary(),
    externalId: p.string().length(255).primary(),
    organizationId: p.string().length(255),
    /** `YYYY-MM` in UTC: the counter the admission was counted in. */
    period: p.string().length(7),
    /** The holding create's own random token: only it gives the admission back. */
    token: p.string().length(32),
    createdAt: p.datetime(),
  },
});

export class QuotaClaim extends QuotaClaimSchema.class {}
QuotaClaimSchema.setClass(QuotaClaim);
