/**
 * The home overview reads the daily rollup (migration daily_totals), kept by
 * a trigger as payments and subscriptions change. Its numbers must be those a
 * count over the raw rows gives (what the overview computed before the
 * rollup): for payments created, paid, failed, expired and refunded across
 * days, after 50 payments go paid at once, and after the migration's
 * backfill rebuilds the rollup from the rows. Real service, real simulators.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backfillDailyTotals } from '../../server/db/migrations/Migration20261127123959_daily_totals';
import { call, validPayment } from '../support/http';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';

let world: SandboxedService;
const DAY = 24 * 3600_000;

const admin = () => world.service.admin;
const sql = <T = unknown>(query: string, params: unknown[] = []) => world.service.services.db.fork().getConnection().execute<T[]>(query, params);
const env = () => world.tenant.environmentId;

async function pay(externalId: string, amount: number, method: 'pix' | 'card' = 'pix'): Promise<string> {
  const reply = await call(world.service.url, 'POST', '/v1/payments', { key: world.tenant.apiKey, body: validPayment({ method, externalId, amount }) });
  expect(reply.status, reply.text).toBe(201);
  return reply.body.id as string;
}

/** The oracle: the overview's numbers counted from the raw rows, as the overview did before the rollup. */
async function rawTotals(table: 'payments' | 'subscriptions') {
  const rows = await sql<{ day: string; status: string; count: string; amount: string }>(
    `select to_char((created_at at time zone 'UTC')::date, 'YYYY-MM-DD') as day, status, count(*) as count, sum(amount) as amount
     from ${table} where environment_id = ? and created_at >= ? group by 1, 2`,
    [env(), new Date(Date.now() - 29 * DAY - (Date.now() % DAY))],
  );
  return rows.map((row) => ({ day: row.day, status: row.status, count: Number(row.count), amount: Number(row.amount) }));
}

/** The overview's numbers as rows of day, status, count and (paid only) amount, sorted. */
async function overviewRows(kind: 'payments' | 'subscriptions') {
  const summary = await admin().overview.summary({ environmentId: env(), days: 30 });
  return summary.days.flatMap((day) =>
    Object.entries(day[kind])
      .filter(([, count]) => count > 0)
      .map(([status, count]) => ({ day: day.date, status, count, ...(kind === 'payments' && status === 'paid' ? { amount: day.paidAmount } : {}) })),
  );
}

const sorted = <T extends { day: string; status: string }>(rows: T[]) => [...rows].sort((a, b) => (a.day + a.status).localeCompare(b.day + b.status));

async function expectOverviewMatchesRawRows(): Promise<void> {
  const payments = (await rawTotals('payments')).map(({ amount, ...row }) => (row.status === 'paid' ? { ...row, amount } : row));
  const subscriptions = (await rawTotals('subscriptions')).map(({ amount: _amount, ...row }) => row);
  expect(sorted(await overviewRows('payments'))).toEqual(sorted(payments));
  expect(sorted(await overviewRows('subscriptions'))).toEqual(sorted(subscriptions));
}

beforeAll(async () => {
  world = await startSandboxedService({
    simulatorsInService: true,
    env: { RATE_LIMIT_DEFAULT: '100000', RATE_LIMIT_PAYMENTS_CREATE: '100000', RECONCILIATION: 'false' },
    routes: { PIX: 'gateway_a', CARD: 'gateway_a', SUBSCRIPTION: 'gateway_b' },
  });
}, 60_000);
afterAll(async () => {
  await world?.stop();
});

describe('the overview from the daily rollup', () => {
  it('shows what a count over the rows shows for payments created, paid, failed, expired and refunded across days, and subscriptions', async () => {
    const ids = {
      created: await pay('mix-created', 1100),
      paidToday: await pay('mix-paid', 2200),
      paidEarlier: await pay('mix-paid-earlier', 3300),
      failed: await pay('mix-failed', 4400, 'card'),
      expired: await pay('mix-expired', 5500),
      refunded: await pay('mix-refunded', 6600),
      outside: await pay('mix-outside', 7700),
    };
    await admin().simulators.payment({ paymentId: ids.paidToday, outcome: 'pay' });
    await admin().simulators.payment({ paymentId: ids.paidEarlier, outcome: 'pay' });
    await admin().simulators.payment({ paymentId: ids.failed, outcome: 'decline' });
    await admin().simulators.payment({ paymentId: ids.expired, outcome: 'expire' });
    await admin().simulators.payment({ paymentId: ids.refunded, outcome: 'pay' });
    await admin().simulators.payment({ paymentId: ids.outside, outcome: 'pay' });
    const refund = await call(world.service.url, 'POST', `/v1/payments/${ids.refunded}/refunds`, { key: world.tenant.apiKey, body: { externalId: 'mix-refund' } });
    expect(refund.status, refund.text).toBe(201);
    const subscription = await call(world.service.url, 'POST', '/v1/subscriptions', {
      key: world.tenant.apiKey,
      body: { amount: 4990, interval: 'monthly', externalId: 'mix-sub', customer: { name: 'Ana', email: 'ana@example.com', document: '12345678909' } },
    });
    expect(subscription.status, subscription.text).toBe(201);
    await admin().simulators.subscription({ subscriptionId: subscription.body.id, outcome: 'past-due' });
    // Moved to other days after the fact, as a data fix would: the rollup follows the row's day too.
    await sql(`update payments set created_at = ? where id = ?`, [new Date(Date.now() - 3 * DAY), ids.paidEarlier]);
    await sql(`update payments set created_at = ? where id = ?`, [new Date(Date.now() - 5 * DAY), ids.failed]);
    await sql(`update payments set created_at = ? where id = ?`, [new Date(Date.now() - 40 * DAY), ids.outside]);

    await expectOverviewMatchesRawRows();
    const summary = await admin().overview.summary({ environmentId: env(), days: 30 });
    // The charge of the renewal is not among them (past_due); the numbers are the ones made above.
    expect(summary.totals.payments).toMatchObject({ created: 0, pending: 1, paid: 3, failed: 1, expired: 1 });
    expect(summary.totals.paidAmount).toBe(2200 + 3300 + 6600);
    expect(summary.totals.subscriptions.past_due).toBe(1);
    expect(summary.days.find((d) => d.date === new Date(Date.now() - 3 * DAY).toISOString().slice(0, 10))!.paidAmount).toBe(3300);
    expect(summary.failedDeliveries).toBe(0);
    expect(summary.failedDeliveriesMore).toBe(false);
  });

  it('stays exact when 50 payments of one day go paid at once', async () => {
    const ids = await Promise.all(Array.from({ length: 50 }, (_, i) => pay(`burst-${i}`, 1000 + i)));
    const before = (await admin().overview.summary({ environmentId: env(), days: 30 })).totals;
    await Promise.all(ids.map((paymentId) => admin().simulators.payment({ paymentId, outcome: 'pay' })));
    const after = (await admin().overview.summary({ environmentId: env(), days: 30 })).totals;
    expect(after.payments.paid - before.payments.paid).toBe(50);
    expect(after.payments.pending - before.payments.pending).toBe(-50);
    expect(after.paidAmount - before.paidAmount).toBe(50 * 1000 + (49 * 50) / 2);
    await expectOverviewMatchesRawRows();
  });

  it('the same from 50 concurrent status changes made by SQL, each in its own transaction', async () => {
    const ids = await Promise.all(Array.from({ length: 50 }, (_, i) => pay(`sql-${i}`, 500)));
    await Promise.all(
      ids.map((id, i) => world.service.services.db.fork().transactional((tx) => tx.execute(`update payments set status = ? where id = ?`, [i % 2 ? 'paid' : 'failed', id]))),
    );
    await expectOverviewMatchesRawRows();
  });

  it("the migration's backfill rebuilds the same rollup from the rows", async () => {
    const kept = await sql(`select environment_id, kind, day, status, count, amount from daily_totals where count <> 0 order by 1, 2, 3, 4`);
    await world.service.services.db.fork().transactional(async (tx) => {
      await tx.execute(`delete from daily_totals`);
      for (const statement of backfillDailyTotals()) await tx.execute(statement);
    });
    expect(await sql(`select environment_id, kind, day, status, count, amount from daily_totals order by 1, 2, 3, 4`)).toEqual(kept);
    await expectOverviewMatchesRawRows();
  });
});
