/**
 * The platform billing gate (the 402 family): an organization whose platform
 * subscription is not active cannot create payments or subscriptions, and
 * payment creation also stops at the plan's monthly quota. Billing owns the
 * monthly usage counter behind that quota.
 */
import type { BillingStatus } from '../contract/enums';
import { ApiError } from '../contract/errors';
import { MonthlyUsage, type Organization } from '../db/entities';
import type { EntityManager } from '../db/orm';
import { raises } from './raises';

export const BILLING_GATE = raises(['billing_inactive', 'billing_past_due', 'billing_incomplete', 'billing_canceled', 'billing_expired']);

export function assertBillingActive(organization: Organization): void {
  switch (organization.billingStatus as BillingStatus) {
    case 'active':
      return;
    case 'inactive':
      throw new ApiError('billing_inactive');
    case 'past_due':
      throw new ApiError('billing_past_due');
    case 'incomplete':
      throw new ApiError('billing_incomplete');
    case 'canceled':
      throw new ApiError('billing_canceled');
    case 'expired':
      throw new ApiError('billing_expired');
  }
}

/** `YYYY-MM` of the given instant in UTC: quotas reset at the start of each UTC month. */
export const usagePeriod = (at: Date): string => at.toISOString().slice(0, 7);

export async function transactionsUsed(em: EntityManager, organizationId: string, at: Date): Promise<number> {
  const usage = await em.findOne(MonthlyUsage, { organization: organizationId, period: usagePeriod(at) });
  return usage?.transactions ?? 0;
}

export const TRANSACTION_QUOTA = raises(['billing_monthly_tx_limit_reached']);

/** 402 `billing_monthly_tx_limit_reached` when one more transaction would exceed the plan's quota. */
export async function assertTransactionQuota(em: EntityManager, organization: Organization, at: Date): Promise<void> {
  const limit = organization.monthlyTxLimit;
  if (limit == null) return;
  const used = await transactionsUsed(em, organization.id, at);
  if (used >= limit) throw new ApiError('billing_monthly_tx_limit_reached', { limit, used });
}

/** Counts one transaction of the month, inside the transaction that registers it, so `used` never drifts from what exists. */
export async function countTransaction(tx: EntityManager, organizationId: string, at: Date): Promise<void> {
  await tx.execute(
    `insert into monthly_usage (organization_id, period, transactions) values (?, ?, 1)
     on conflict (organization_id, period) do update set transactions = monthly_usage.transactions + 1`,
    [organizationId, usagePeriod(at)],
  );
}
