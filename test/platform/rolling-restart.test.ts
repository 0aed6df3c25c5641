/**
 * A rolling restart as an orchestrator does it: two service processes on one
 * PostgreSQL database behind a balancer that sends only to nodes whose
 * `/readyz` says ready (test/support/round-robin-proxy.ts), a steady create
 * and read load through it, a webhook receiver counting event ids. Node A is
 * stopped with SIGTERM and started again, then node B. Nothing may fail:
 * each node says `draining` on /readyz while it still serves, so the
 * balancer leaves it before its listener closes, and it finishes its
 * in-flight deliveries before exiting, so no event is lost or sent twice.
 * Two processes cannot share the embedded database: PostgreSQL only.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../server/contract/ids';
import { createTestDatabase, onPostgres, type TestDatabase } from '../support/database';
import { startSandbox, type Sandbox } from '../support/gateways';
import { call, validPayment } from '../support/http';
import { eventually } from '../support/outbox-events';
import { startReceiver, type Receiver } from '../support/receiver';
import { startRoundRobinProxy, type BalancedNode, type RoundRobinProxy } from '../support/round-robin-proxy';
import { exitWithin, startServiceProcess, unusedPort, type ServiceProcess } from '../support/service-process';
import { sharedCounters, startTestService, type TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';

/** With no delivery finishing for this long, the deliveries are stuck: far past the lease (3 s) and attempt timeout (2 s). */
const STALLED_MS = 15_000;

type Outcome = { status: string; attempt_count: number; n: string | number };

const finishedOf = (rows: Outcome[]) => rows.filter((row) => row.status !== 'PENDING').reduce((sum, row) => sum + Number(row.n), 0);
const totalOf = (rows: Outcome[]) => rows.reduce((sum, row) => sum + Number(row.n), 0);

/** Waits until all `expected` deliveries are finished, for as long as each wait sees one more finish within STALLED_MS. */
async function whileProgressing(outcomes: () => Promise<Outcome[]>, expected: number): Promise<Outcome[]> {
  let finished = -1;
  let last: Outcome[] = [];
  for (;;) {
    const seen = finished;
    const rows = await eventually(
      async () => {
        last = await outcomes();
        return finishedOf(last) > seen ? last : undefined;
      },
      STALLED_MS,
      `one more delivery finished within ${STALLED_MS} ms`,
    ).catch(() => {
      throw new Error(`deliveries stalled: ${finishedOf(last)} of ${expected} finished, none in the last ${STALLED_MS} ms: ${JSON.stringify(last)}`);
    });
    finished = finishedOf(rows);
    if (totalOf(rows) === expected && finished === expected) return rows;
  }
}

describe.skipIf(!onPostgres)('rolling restart of two nodes behind a balancer', () => {
  let database: TestDatabase;
  let proxy: RoundRobinProxy;
  let receiver: Receiver;
  /** The operator's in-process service on the same database: configures the tenant, reads the tables. Not balanced. */
  let operator: TestService;
  let sandbox: Sandbox;
  let tenant: TestTenant;
  const nodes: { name: string; port: number; dataDir: string; process?: ServiceProcess }[] = [];
  let nodeEnv: Record<string, string>;

  beforeAll(async () => {
    database = await createTestDatabase({ migrated: true });
    receiver = await startReceiver();
    // A receiver that takes a moment, so deliveries are in flight when a node is told to stop.
    receiver.answer(() => ({ status: 200, delayMs: 30 }));
    for (const name of ['A', 'B']) nodes.push({ name, port: await unusedPort(), dataDir: mkdtempSync(join(tmpdir(), `payments-rolling-${name}-`)) });
    proxy = await startRoundRobinProxy(nodes.map((node) => `http://127.0.0.1:${node.port}`), { pollMs: 100 });
    const shared = {
      MASTER_KEY: randomBytes(32).toString('base64'),
      ADMIN_TOKEN: `adm_${randomToken(40)}`,
      WEBHOOK_ALLOW_LOCAL_URLS: 'true',
      // Gateways' notifications reach the nodes through the balancer.
      PUBLIC_BASE_URL: proxy.url,
      ...sharedCounters(database),
    };
    operator = await startTestService({ database, env: { ...shared, WEBHOOK_DISPATCHER: 'false', RECONCILIATION: 'false' } });
    tenant = await createTenant(operator);
    sandbox = await startSandbox(operator, tenant.environmentId, { PIX: 'gateway_a' });
    await operator.admin.webhooks.createEndpoint({ environmentId: tenant.environmentId, url: receiver.url('/hooks') });
    nodeEnv = {
      ...shared,
      DATABASE_URL: database.config.kind === 'postgresql' ? database.config.url : '',
      SEED_DEMO: 'false',
      LOG_FORMAT: 'json',
      SHUTDOWN_DRAIN_MS: '1000',
      WEBHOOK_POLL_INTERVAL_MS: '200',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_LEASE_MS: '3000',
      RATE_LIMIT_PAYMENTS_CREATE: '100000',
      RATE_LIMIT_DEFAULT: '100000',
    };
    await Promise.all(nodes.map(start));
  }, 180_000);

  afterAll(async () => {
    for (const node of nodes) if (node.process && node.process.child.exitCode === null) node.process.child.kill('SIGKILL');
    await proxy?.close();
    await sandbox?.close();
    await operator?.stop();
    await receiver?.close();
    await database?.drop();
    for (const node of nodes) rmSync(node.dataDir, { recursive: true, force: true });
  });

  async function start(node: (typeof nodes)[number]): Promise<void> {
    node.process = await startServiceProcess({ ...nodeEnv, PORT: String(node.port), DATA_DIR: node.dataDir }, 120_000);
  }

  const balanced = (node: (typeof nodes)[number]): BalancedNode => proxy.nodes.find((candidate) => candidate.url.endsWith(`:${node.port}`))!;

  /** SIGTERM, exit 0, started again on the same port, back in the balancer. Answers the probes seen from SIGTERM to exit. */
  async function restart(node: (typeof nodes)[number]) {
    const stopping = node.process!;
    const seenBefore = balanced(node).probes.length;
    stopping.child.kill('SIGTERM');
    expect(await exitWithin(stopping.child, 30_000, stopping.output)).toBe(0);
    const seen = balanced(node).probes.slice(seenBefore).map((probe) => probe.outcome);
    await start(node);
    await eventually(async () => balanced(node).ready(), 20_000, `node ${node.name} ready again`);
    return seen;
  }

  it('answers every request, says draining before each listener closes, and delivers each event once', async () => {
    await eventually(async () => proxy.nodes.every((node) => node.ready()), 20_000, 'both nodes ready');
    // Steady load: each worker creates a payment and reads it back, again and again, until the restarts are over.
    const failed: string[] = [];
    let answered = 0;
    let loading = true;
    const worker = async () => {
      while (loading) {
        const created = await call(proxy.url, 'POST', '/v1/payments', { key: tenant.apiKey, body: validPayment() });
        answered++;
        if (created.status !== 201) {
          failed.push(`create ${created.status} ${created.text}`);
          continue;
        }
        const read = await call(proxy.url, 'GET', `/v1/payments/${created.body.id}`, { key: tenant.apiKey });
        answered++;
        if (read.status !== 200) failed.push(`read ${read.status} ${read.text}`);
      }
    };
    const workers = Array.from({ length: 2 }, worker);

    const probesOf: Record<string, string[]> = {};
    for (const node of nodes) probesOf[node.name] = await restart(node);
    loading = false;
    await Promise.all(workers);

    const history = Object.fromEntries(proxy.nodes.map((node) => [node.url, node.probes.map((probe) => `${probe.at % 100_000}:${probe.outcome}`).join(' ')]));
    expect({ failed, balancer: proxy.failures }, JSON.stringify(history)).toEqual({ failed: [], balancer: [] });
    expect(answered).toBeGreaterThan(20);
    for (const node of nodes) {
      const seen = probesOf[node.name]!;
      // Ready, then draining for a while (the balancer stops sending), and only then nothing listening.
      const firstDraining = seen.indexOf('draining');
      const firstRefused = seen.indexOf('refused');
      expect(firstDraining, `${node.name}: ${seen.join(' ')}`).toBeGreaterThanOrEqual(0);
      expect(firstRefused === -1 || firstDraining < firstRefused, `${node.name}: ${seen.join(' ')}`).toBe(true);
    }

    // Every committed event of the environment reaches the receiver once: none lost, none sent twice.
    const db = operator.services.db.fork();
    const events = async () => (await db.getConnection().execute<{ id: string }[]>('select id from events where environment_id = ?', [tenant.environmentId])).map((row) => row.id);
    const committed = await events();
    expect(committed.length).toBeGreaterThan(20);
    const outcomes = async () =>
      db
        .getConnection()
        .execute<Outcome[]>(
          'select status, attempt_count, count(*) as n from webhook_deliveries where environment_id = ? group by status, attempt_count',
          [tenant.environmentId],
        );
    // Finished: every delivery has the outcome of its attempt recorded (none PENDING, none claimed). One endpoint is
    // sent one delivery at a time, in event order, so the load leaves a backlog that drains at the host's pace (about
    // 6 a second with the host loaded, 300 left when the restarts end): waited for while deliveries keep finishing,
    // failed when none has finished for a while, longer than any lease or attempt can hold one back.
    const attempts = await whileProgressing(outcomes, committed.length);
    expect(attempts.map((row) => ({ status: row.status, attempts: row.attempt_count, n: Number(row.n) }))).toEqual([{ status: 'SENT', attempts: 1, n: committed.length }]);
    const timesReceived = new Map<string, number>();
    for (const delivery of receiver.received) timesReceived.set(delivery.json.id, (timesReceived.get(delivery.json.id) ?? 0) + 1);
    expect([...timesReceived.entries()].filter(([, times]) => times > 1)).toEqual([]);
    expect(new Set(timesReceived.keys())).toEqual(new Set(await events()));
  }, 300_000);
});
