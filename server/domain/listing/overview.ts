/**
 * The dashboard's home page: per day (UTC) and status, how many payments and
 * subscriptions were created, the amount of those paid, and how many
 * deliveries are failed right now. Counted by the database (GROUP BY day and
 * status), never by loading the rows.
 */
import { PAYMENT_STATUSES, SUBSCRIPTION_STATUSES, type PaymentStatus, type SubscriptionStatus } from '../../contract/enums';
import type { EntityManager } from '../../db/orm';

const DAY_MS = 24 * 60 * 60 * 1000;

interface Row {
  day: string;
  status: string;
  count: string | number;
  amount: string | number | null;
}

const zeros = <S extends string>(statuses: readonly S[]) => Object.fromEntries(statuses.map((s) => [s, 0])) as Record<S, number>;

/** `day` and `status` of the table's rows in [from, to), counted with their summed amount. */
function perDayAndStatus(em: EntityManager, table: 'payments' | 'subscriptions', environmentId: string, from: Date, to: Date): Promise<Row[]> {
  return em.execute<Row[]>(
    `select to_char((created_at at time zone 'UTC')::date, 'YYYY-MM-DD') as day, status, count(*) as count, sum(amount) as amount
     from ${table}
     where environment_id = ? and created_at >= ? and created_at < ?
     group by 1, 2`,
    [environmentId, from, to],
  );
}

export async function overviewSummary(em: EntityManager, environmentId: string, days: number, now: Date) {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const from = new Date(today - (days - 1) * DAY_MS);
  const to = new Date(today + DAY_MS);
  const [payments, subscriptions, failed] = await Promise.all([
    perDayAndStatus(em, 'payments', environmentId, from, to),
    perDayAndStatus(em, 'subscriptions', environmentId, from, to),
    em.execute<{ count: string | number }[]>(`select count(*) as count from webhook_deliveries where environment_id = ? and status = 'FAILED'`, [
      environmentId,
    ]),
  ]);

  const series = Array.from({ length: days }, (_, i) => ({
    date: new Date(from.getTime() + i * DAY_MS).toISOString().slice(0, 10),
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
    /** Deliveries of this environment whose latest attempt failed (whenever they were created): what resendFailed would resend. */
    failedDeliveries: Number(failed[0]?.count ?? 0),
  };
}
