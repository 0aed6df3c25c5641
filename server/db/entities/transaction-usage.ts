import { defineEntity, p } from '@mikro-orm/core';

/**
 * One row per payment transaction counted against its organization's monthly
 * quota, written in the transaction that records the gateway's acceptance.
 * Append-only and keyed by the payment, so concurrent creates of one
 * organization never touch the same row: the month's `used` is the count of
 * these rows (plus the period's `monthly_usage` base, see monthly-usage.ts).
 */
export const TransactionUsageSchema = defineEntity({
  name: 'TransactionUsage',
  tableName: 'transaction_usage',
  indexes: [{ properties: ['organizationId', 'period'] }],
  properties: {
    paymentId: p.string().length(255).primary(),
    organizationId: p.string().length(255),
    /** `YYYY-MM` in UTC. */
    period: p.string().length(7),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class TransactionUsage extends TransactionUsageSchema.class {}
TransactionUsageSchema.setClass(TransactionUsage);
