/**
 * The dashboard's home page: per day (UTC) and status, how many payments and
 * subscriptions were created, the amount of those paid, and how many
 * deliveries are failed right now. Read from the daily rollup the database
 * keeps as payments and subscriptions change (migration daily_totals: a
 * trigger in each change's transaction), so a view reads days x statuses
 * rows whatever the tables hold; failed deliveries are counted exactly up to
 * 10,000, then flagged (decision 25).
 */
import { PAYMENT_STATUSES, SUBSCRIPTION_STATUSES, type PaymentStatus, type SubscriptionStatus } from '../../contract/enums';
import type { EntityManager } from '../../db/orm';
import { deliveriesInStatus } from './delivery-backlog';

const DAY_MS = 24 * 60 * 60 * 1000;

interface Row {
  day: string;
  status: string;
  count: string | number;
  amount: string | number | null;
}

const zeros = <S extends string>(statuses: readonly S[]) => Object.fromEntries(statuses.map((s) => [s, 0])) as Record<S, number>;
const isoDay = (time: number) => new Date(time).toISOString().slice(0, 10);

/** The rollup's rows of one kind created on the UTC days [from, to]: each day and status with its count and summed amount. */
export function perDayAndStatus(em: EntityManager, kind: 'payment' | 'subscription', environmentId: string, from: string, to: string): Promise<Row[]> {
  return em.execute<Row[]>(
    `select to_char(day, 'YYYY-MM-DD') as day, status, count, amount
     from daily_totals
     where environment_id = ? and kind = ? and day >= ?::date and day <= ?::date`,
    [environmentId, kind, from, to],
  );
}

export async function overviewSummary(em: EntityManager, environmentId: string, days: number, now: Date) {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const from = new Date(today - (days - 1) * DAY_MS);
  const to = new Date(today + DAY_MS);
  const [payments, subscriptions, failed] = await Promise.all([
    perDayAndStatus(em, 'payment', environmentId, isoDay(from.getTime()), isoDay(today)),
    perDayAndStatus(em, 'subscription', environmentId, isoDay(from.getTime()), isoDay(today)),
    deliveriesInStatus(em, environmentId, 'FAILED'),
  ]);

  const series = Array.from({ length: days }, (_, i) => ({
    date: isoDay(from.getTime() + i * DAY_MS),
    payments: zeros(PAYMENT_STATUSES),
    subscriptions: zeros(SUBSCRIPTION_STATUSES),
    /** Amount (in cents) of the payments created that day that are paid now. */
    paidAmount: 0,
  }));
  const byDate = new Map(series.map((day) => [day.date, day]));
  for (const row of payments) {
    const day = byDate.get(row.day);
    if (!day || !(row.status in day.payments)) continue;
    day.payments[row.status as PaymentStatus] += Number(row.count);
    if (row.status === 'paid') day.paidAmount += Number(row.amount ?? 0);
  }
  for (const row of subscriptions) {
    const day = byDate.get(row.day);
    if (!day || !(row.status in day.subscriptions)) continue;
    day.subscriptions[row.status as SubscriptionStatus] += Number(row.count);
  }

  const totals = { payments: zeros(PAYMENT_STATUSES), subscriptions: zeros(SUBSCRIPTION_STATUSES), paymentCount: 0, subscriptionCount: 0, paidAmount: 0 };
  for (const day of series) {
    for (const status of PAYMENT_STATUSES) totals.payments[status] += day.payments[status];
    for (const status of SUBSCRIPTION_STATUSES) totals.subscriptions[status] += day.subscriptions[status];
    totals.paidAmount += day.paidAmount;
  }
  totals.paymentCount = Object.values(totals.payments).reduce((a, b) => a + b, 0);
  totals.subscriptionCount = Object.values(totals.subscriptions).reduce((a, b) => a + b, 0);

  return {
    environmentId,
    from: from.toISOString(),
    to: to.toISOString(),
    currency: 'BRL' as const,
    days: series,
    totals,
    /** Deliveries of this environment whose latest attempt failed (whenever they were created): what resendFailed would resend; exact up to 10,000. */
    failedDeliveries: failed.count,
    /** More than 10,000 deliveries are failed: `failedDeliveries` shows 10,000 ("10,000+"). */
    failedDeliveriesMore: failed.more,
  };
}
