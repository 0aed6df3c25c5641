/**
 * The platform billing gate (the 402 family): an organization whose platform
 * subscription is not active cannot create payments or subscriptions, and
 * payment creation also stops at the plan's monthly quota (admitted by
 * quota.ts).
 */
import type { BillingStatus } from '../contract/enums';
import { Refusal } from './refusal';
import type { Organization } from '../db/entities';
import type { EntityManager } from '../db/orm';
import { admit, transactionsUsed, usagePeriod, type QuotaAdmission } from './quota';
import { raises } from './raises';
import type { CompanionInsert } from './registration/commit';

export const BILLING_GATE = raises(['billing_inactive', 'billing_past_due', 'billing_incomplete', 'billing_canceled', 'billing_expired']);

export function assertBillingActive(organization: Organization): void {
  switch (organization.billingStatus as BillingStatus) {
    case 'active':
      return;
    case 'inactive':
      throw new Refusal('billing_inactive');
    case 'past_due':
      throw new Refusal('billing_past_due');
    case 'incomplete':
      throw new Refusal('billing_incomplete');
    case 'canceled':
      throw new Refusal('billing_canceled');
    case 'expired':
      throw new Refusal('billing_expired');
  }
}

export const TRANSACTION_QUOTA = raises(['billing_monthly_tx_limit_reached']);

/**
 * How long a registration can take (the gateway's whole timeout and the
 * lease's margin): a quota counter with no admission for longer holds none
 * still on its way to an insert, so it may be reconciled (quota.ts).
 */
export const reconcileAfterMs = (gatewayTotalMs: number): number => gatewayTotalMs + 10_000;

/**
 * 402 `billing_monthly_tx_limit_reached` when one more payment would exceed
 * the plan's quota for the month of `at`; otherwise the admission of that
 * payment (null: the organization has no quota), or `taken` when another
 * create of this externalId inserted the payment to answer. The answer's
 * `used` is the exact count of the month.
 */
export async function reserveTransaction(
  em: EntityManager,
  organization: Organization,
  create: { environmentId: string; externalId: string; at: Date; clock: () => Date; gatewayTotalMs: number },
): Promise<QuotaAdmission | 'taken' | null> {
  const limit = organization.monthlyTxLimit;
  if (limit == null) return null;
  const period = usagePeriod(create.at);
  const request = { organizationId: organization.id, period, limit, ...create, reconcileAfterMs: reconcileAfterMs(create.gatewayTotalMs) };
  const decision = await admit(em, request);
  if (decision !== 'refused') return decision;
  throw new Refusal('billing_monthly_tx_limit_reached', { limit, used: await transactionsUsed(em, organization.id, period) });
}

/**
 * Counts one payment in the month it was created (the month its admission
 * was counted in), in the statement that registers it (registration/commit.ts):
 * an insert of its own row, no shared row to lock.
 */
export const transactionUsageInsert = (organizationId: string, payment: { createdAt: Date }): CompanionInsert => ({
  sql: `insert into transaction_usage (payment_id, organization_id, period, created_at) select id, ?, ?, ?::timestamptz from registered on conflict (payment_id) do nothing`,
  params: [organizationId, usagePeriod(payment.createdAt), new Date()],
});
