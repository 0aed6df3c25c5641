/**
 * The platform billing gate (spec 7.2, the 402 family): an organization whose
 * platform subscription is not active cannot create payments or
 * subscriptions, and payment creation also stops at the plan's monthly quota.
 */
import { ApiError } from '../contract/errors';
import type { BillingStatus } from '../contract/enums';
import type { EntityManager } from '../db/orm';
import { MonthlyUsage, type Organization } from '../db/entities';

const BLOCKING_CODE = {
  inactive: 'billing_inactive',
  past_due: 'billing_past_due',
  incomplete: 'billing_incomplete',
  canceled: 'billing_canceled',
  expired: 'billing_expired',
} as const satisfies Record<Exclude<BillingStatus, 'active'>, string>;

export function assertBillingActive(organization: Organization): void {
  const status = organization.billingStatus as BillingStatus;
  if (status !== 'active') throw new ApiError(BLOCKING_CODE[status]);
}

/** `YYYY-MM` of the given instant in UTC: quotas reset at the start of each UTC month. */
export const usagePeriod = (at: Date): string => at.toISOString().slice(0, 7);

export async function transactionsUsed(em: EntityManager, organizationId: string, at: Date): Promise<number> {
  const usage = await em.findOne(MonthlyUsage, { organization: organizationId, period: usagePeriod(at) });
  return usage?.transactions ?? 0;
}

/** 402 `billing_monthly_tx_limit_reached` when one more transaction would exceed the plan's quota. */
export async function assertTransactionQuota(em: EntityManager, organization: Organization, at: Date): Promise<void> {
  const limit = organization.monthlyTxLimit;
  if (limit == null) return;
  const used = await transactionsUsed(em, organization.id, at);
  if (used >= limit) throw new ApiError('billing_monthly_tx_limit_reached', { limit, used });
}
