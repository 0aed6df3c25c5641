/**
 * Issue 39 (items 1 and 4): the home overview, the reconciliation status and
 * every background pass read what their page or batch needs, whatever the
 * tables hold. On PostgreSQL, with 200,000 payments due for reconciliation,
 * 200,000 events waiting for fan-out, 200,000 expired events, 200,000
 * deliveries waiting and 12,000 failed ones seeded by SQL: each statement
 * the real functions send is run again under EXPLAIN ANALYZE (in a
 * transaction rolled back) and must scan no big table sequentially and touch
 * a bounded number of its rows. Reconciliation keeps its per-gateway budget
 * with all of them due. (PGlite holds demo volumes: the bound is shown here.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityManager } from '../../server/db/orm';
import { pruneEventsBatch } from '../../server/domain/events-feed/prune';
import { overviewSummary } from '../../server/domain/listing/overview';
import { Payment } from '../../server/domain/payments/payment';
import { claimDueReads } from '../../server/domain/reconciliation/claims';
import { reconciliationStatus } from '../../server/domain/reconciliation/status';
import { claimNextDeliveries } from '../../server/webhooks/claims';
import { fanOutBatch } from '../../server/webhooks/fan-out';
import { onPostgres } from '../support/database';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { createTenant } from '../support/tenant';

const VOLUME = 200_000;
const FAILED = 12_000;
/** Tables holding at least 10,000 rows once seeded (the planner may scan a small or empty one as it likes). */
const BIG_TABLES = new Set<string>();
/** Reads per pass and gateway: RECONCILIATION_RATE_PER_GATEWAY (1 a second) for the budget's minute. */
const BUDGET = 60;

let world: SandboxedService;
const db = () => world.service.services.db.fork();
const env = () => world.tenant.environmentId;

interface Statement {
  sql: string;
  params: unknown[];
}

/** The entity manager itself, noting each statement it sends (and those of its transactions and forks). */
function noting(em: EntityManager, seen: Statement[]): EntityManager {
  return new Proxy(em, {
    get(target, property) {
      if (property === 'execute') return (sql: string, params: unknown[] = [], ...rest: unknown[]) => (seen.push({ sql, params }), (target.execute as (...a: unknown[]) => unknown)(sql, params, ...rest));
      if (property === 'transactional') return (work: (tx: EntityManager) => unknown, options?: unknown) => target.transactional((tx) => work(noting(tx as EntityManager, seen)), options as never);
      if (property === 'fork') return (...args: unknown[]) => noting((target.fork as (...a: unknown[]) => EntityManager)(...args), seen);
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** The plan the statement ran with and the rows of each big table it touched, from EXPLAIN ANALYZE in a transaction rolled back. */
async function analyzed(statement: Statement): Promise<{ nodes: PlanNode[]; touched: Map<string, number> }> {
  let plan: PlanNode | undefined;
  await db()
    .transactional(async (tx) => {
      const [row] = await tx.execute<{ 'QUERY PLAN': [{ Plan: PlanNode }] }[]>(`explain (analyze, format json) ${statement.sql}`, statement.params);
      plan = row!['QUERY PLAN'][0].Plan;
      throw new Error('rolled back');
    })
    .catch((error: Error) => {
      if (error.message !== 'rolled back') throw error;
    });
  const nodes = nodesOf(plan!);
  const touched = new Map<string, number>();
  for (const node of nodes) {
    if (!node['Relation Name'] || !BIG_TABLES.has(node['Relation Name'])) continue;
    const rows = ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) * (node['Actual Loops'] ?? 1);
    touched.set(node['Relation Name'], (touched.get(node['Relation Name']) ?? 0) + rows);
  }
  return { nodes, touched };
}

/** Runs `work` on a noting entity manager, then checks each statement it sent: no sequential scan of a big table, at most `bound` rows of each touched. */
async function expectBounded<T>(what: string, work: (em: EntityManager) => Promise<T>, bound: number): Promise<{ result: T; statements: { sql: string; nodes: PlanNode[]; touched: Map<string, number> }[] }> {
  const seen: Statement[] = [];
  const result = await work(noting(db(), seen));
  const statements = [];
  for (const statement of seen.filter((s) => /^\s*(select|update|delete|with)/i.test(s.sql))) {
    const { nodes, touched } = await analyzed(statement);
    const scans = nodes.filter((node) => node['Node Type'] === 'Seq Scan' && BIG_TABLES.has(node['Relation Name'] ?? '')).map((node) => node['Relation Name']);
    expect(scans, `${what}: sequential scan in\n${statement.sql}\n${JSON.stringify(nodes.map((n) => [n['Node Type'], n['Relation Name'], n['Actual Rows']]))}`).toEqual([]);
    for (const [table, rows] of touched) expect(rows, `${what}: rows of ${table} touched by\n${statement.sql}`).toBeLessThanOrEqual(bound);
    statements.push({ sql: statement.sql, nodes, touched });
  }
  expect(statements.length, `${what} sent no statement`).toBeGreaterThan(0);
  return { result, statements };
}

const seed = (sql: string, params: unknown[] = []) => db().getConnection().execute(sql, params);

describe.skipIf(!onPostgres)('bounded at 200,000 rows (PostgreSQL)', () => {
  beforeAll(async () => {
    world = await startSandboxedService({
      env: {
        WEBHOOK_DISPATCHER: 'false',
        WEBHOOK_ALLOW_LOCAL_URLS: 'true',
        RECONCILIATION_POLL_INTERVAL_MS: '600000',
        RECONCILIATION_RATE_PER_GATEWAY: String(BUDGET / 60),
      },
      routes: { PIX: 'gateway_a', CARD: 'gateway_a', SUBSCRIPTION: 'gateway_a' },
    });
    const endpoint = await world.service.admin.webhooks.createEndpoint({ environmentId: env(), url: 'http://127.0.0.1:9/hooks' });
    // Pending Pix payments over the last 30 days, every one due for a read (gateway_a does not know their references: each read finds it lost).
    await seed(
      `insert into payments (id, environment_id, external_id, method, gateway, gateway_ref, amount, currency, status, request_hash, customer_name, customer_email, customer_document_last4, reconcile_at, created_at, updated_at)
       select 'pay_vol_' || lpad(g::text, 7, '0'), ?, 'vol-' || g, 'pix', 'gateway_a', 'unknown-' || g, 1000 + g % 7, 'BRL', case when g % 5 = 0 then 'paid' else 'pending' end, repeat('0', 64),
              'Volume ' || g, 'v' || g || '@example.com', '0000', case when g % 5 = 0 then null else now() - g * interval '1 second' end, now() - (g % 30) * interval '1 day', now()
       from generate_series(1, ?) g`,
      [env(), VOLUME],
    );
    // Events: expired ones (dispatched, 40 days old), recent ones with their deliveries, and recent ones of another environment not fanned out yet.
    await seed(
      `insert into events (id, environment_id, type, resource_id, data, created_at, dispatched_at)
       select 'evt_old_' || lpad(g::text, 7, '0'), ?, 'payment.paid', 'pay_x', '{}'::jsonb, now() - interval '40 days', now() - interval '40 days' from generate_series(1, ?) g`,
      [env(), VOLUME],
    );
    await seed(
      `insert into events (id, environment_id, type, resource_id, data, created_at, dispatched_at)
       select 'evt_new_' || lpad(g::text, 7, '0'), ?, 'payment.paid', 'pay_x', '{}'::jsonb, now(), now() from generate_series(1, ?) g`,
      [env(), VOLUME],
    );
    const other = await createTenant(world.service);
    await seed(
      `insert into events (id, environment_id, type, resource_id, data, created_at, dispatched_at)
       select 'evt_fan_' || lpad(g::text, 7, '0'), ?, 'payment.paid', 'pay_x', '{}'::jsonb, now(), null from generate_series(1, ?) g`,
      [other.environmentId, VOLUME],
    );
    // Deliveries to one endpoint: most waiting for their first attempt, some failed.
    await seed(
      `insert into webhook_deliveries (id, endpoint_id, event_id, environment_id, event_type, event_sequence, status, created_at, updated_at)
       select 'dlv_vol_' || e.sequence, ?, e.id, e.environment_id, e.type, e.sequence, case when row_number() over (order by e.sequence) <= ? then 'FAILED' else 'PENDING' end, now(), now()
       from events e where e.id like 'evt_new_%'`,
      [endpoint.id, FAILED],
    );
    await seed('analyze');
    const big = await db().getConnection().execute<{ relname: string }[]>(`select relname from pg_class where relkind = 'r' and relnamespace = 'public'::regnamespace and reltuples >= 10000`);
    for (const { relname } of big) BIG_TABLES.add(relname);
    expect([...BIG_TABLES].sort()).toEqual(['events', 'payments', 'webhook_deliveries']);
  }, 600_000);
  afterAll(async () => {
    await world?.stop();
  });

  it('the home overview reads the rollup, never the payments, and counts failed deliveries up to 10,001', async () => {
    const { result, statements } = await expectBounded('overview', (em) => overviewSummary(em, env(), 30, new Date()), 10_001);
    for (const { nodes } of statements) expect(nodes.map((n) => n['Relation Name']).filter(Boolean)).not.toContain('payments');
    expect(result.totals.paymentCount).toBe(VOLUME);
    expect(result.totals.payments.paid).toBe(VOLUME / 5);
    expect(result.failedDeliveries).toBe(10_000);
    expect(result.failedDeliveriesMore).toBe(true);
  });

  it('the reconciliation status, of the environment and platform-wide, counts up to 10,001 per table and lists its first rows', async () => {
    const now = new Date();
    for (const environmentId of [env(), null]) {
      const { result } = await expectBounded('reconciliation status', (em) => reconciliationStatus(em, now, { environmentId, limit: 50 }), 10_001);
      expect(result).toMatchObject({ scheduled: 10_000, overdue: 10_000, lost: 0, more: { scheduled: true, overdue: true, lost: false } });
      expect(result.items).toHaveLength(50);
      expect(result.items[0]!.id).toBe(`pay_vol_${String(VOLUME - 1).padStart(7, '0')}`);
    }
  });

  it('a reconciliation claim takes its batch through the due index', async () => {
    const { result } = await expectBounded('reconciliation claim', (em) => claimDueReads(em, Payment, new Date(), 50, 1_000), 200);
    expect(result).toHaveLength(50);
    await db().getConnection().execute(`update payments set reconcile_lease_until = null where reconcile_lease_until is not null`);
  });

  it('fan-out takes its batch of events in sequence order through the (dispatched_at, sequence) index', async () => {
    const { result } = await expectBounded('fan-out', (em) => fanOutBatch(em, 100), 1_000);
    expect(result).toBe(100);
  });

  it('pruning deletes a batch of expired events, reading no more than its batch', async () => {
    const cutoff = new Date(Date.now() - 30 * 86_400_000);
    const { result } = await expectBounded('pruning', (em) => pruneEventsBatch(em, cutoff, new Date(), 500), 2_000);
    expect(result).toMatchObject({ taken: 500, deleted: 500 });
  });

  it('the dispatcher claims the head of each endpoint without reading its whole queue', async () => {
    const { result } = await expectBounded('delivery claim', (em) => claimNextDeliveries(em, 10, 'dsp_volume', 60_000), 1_000);
    expect(result).toHaveLength(1);
  });

  it(`reconciliation with ${VOLUME} due keeps its per-gateway budget: at most ${BUDGET} reads of gateway_a in a pass`, async () => {
    const calls = () => world.sandbox.sims.gateway_a.stats().calls.getPayment ?? 0;
    const before = calls();
    await world.service.reconciler!.pass();
    const made = calls() - before;
    expect(made).toBeGreaterThan(0);
    expect(made).toBeLessThanOrEqual(BUDGET);
    const [read] = await db().getConnection().execute<{ n: string }[]>(`select count(*) as n from payments where reconcile_checks > 0`);
    expect(Number(read!.n)).toBe(made);
  }, 120_000);
});
