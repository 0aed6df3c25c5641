/**
 * The platform billing gate (the 402 family): an organization whose platform
 * subscription is not active cannot create payments or subscriptions, and
 * payment creation also stops at the plan's monthly quota. Billing owns the
 * monthly usage counter behind that quota.
 */
import type { BillingStatus } from '../contract/enums';
import { ApiError } from '../contract/errors';
import type { Organization } from '../db/entities';
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

/**
 * The month's exact count: the period's base (`monthly_usage`, rows counted
 * before per-payment usage existed, or an operator's adjustment) plus one
 * `transaction_usage` row per payment the gateway accepted. Once requests
 * settle it is exactly what was created.
 */
export async function transactionsUsed(em: EntityManager, organizationId: string, at: Date): Promise<number> {
  const period = usagePeriod(at);
  const [row] = await em.execute<{ used: string | number }[]>(
    `select coalesce((select transactions from monthly_usage where organization_id = ? and period = ?), 0)
          + (select count(*) from transaction_usage where organization_id = ? and period = ?) as used`,
    [organizationId, period, organizationId, period],
  );
  return Number(row?.used ?? 0);
}

export const TRANSACTION_QUOTA = raises(['billing_monthly_tx_limit_reached']);

/**
 * Admission to the monthly quota, on the hot path of every create of an
 * organization with a quota. A shared atomic counter per organization and
 * month (Redis, or this process's memory on the embedded single node) holds
 * the transactions admitted: seeded from the exact count, incremented when a
 * create is admitted, decremented when an admitted create ends without a
 * payment that can still be registered. Nothing is locked: creates of one
 * organization never wait for each other.
 */
export interface QuotaCounter {
  /**
   * Admits one transaction when the counter is below `limit`. `claim` names
   * the create (environment and externalId): concurrent creates of one
   * externalId are one transaction, so only the first claimant counts (the
   * others will answer its payment); the claim ends with a release or after
   * reconcileAfterMs. `exact` gives
   * the exact count: to seed a missing counter, to reconcile it on a refusal
   * (see reconcileAfterMs), and to decide alone while the shared store is
   * unreachable.
   */
  admit(request: { organizationId: string; period: string; limit: number; claim: string }, exact: () => Promise<number>): Promise<QuotaAdmission>;
}

export type QuotaAdmission = ({ admitted: true } & QuotaReservation) | { admitted: false };

/**
 * A counter is replaced by the exact count only when nothing was admitted for
 * the organization for this long (longer than a registration lease: every
 * create admitted before it has committed, failed or been interrupted), so a
 * reservation lost by a crashed process cannot refuse creates for good, and a
 * live reservation is never forgotten.
 */
export const reconcileAfterMs = (gatewayTotalMs: number): number => gatewayTotalMs + 10_000;

export interface QuotaReservation {
  /** Gives the admission back: the create ended without a payment that could still be registered. */
  release(): Promise<void>;
}

/**
 * 402 `billing_monthly_tx_limit_reached` when one more transaction would
 * exceed the plan's quota; otherwise the reservation of that transaction.
 * The answer's `used` is the exact count of the month.
 */
export async function reserveTransaction(
  em: EntityManager,
  counter: QuotaCounter,
  organization: Organization,
  create: { environmentId: string; externalId: string },
  at: Date,
): Promise<QuotaReservation | null> {
  const limit = organization.monthlyTxLimit;
  if (limit == null) return null;
  const exact = () => transactionsUsed(em, organization.id, at);
  const claim = `${create.environmentId}:${create.externalId}`;
  const admission = await counter.admit({ organizationId: organization.id, period: usagePeriod(at), limit, claim }, exact);
  if (admission.admitted) return admission;
  throw new ApiError('billing_monthly_tx_limit_reached', { limit, used: await exact() });
}

/** Counts one transaction of the month, inside the transaction that registers it: an insert of its own row, no shared row to lock. */
export async function countTransaction(tx: EntityManager, organizationId: string, paymentId: string, at: Date): Promise<void> {
  await tx.execute(
    `insert into transaction_usage (payment_id, organization_id, period, created_at) values (?, ?, ?, ?) on conflict (payment_id) do nothing`,
    [paymentId, organizationId, usagePeriod(at), at],
  );
}
