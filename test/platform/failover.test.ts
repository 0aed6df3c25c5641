/**
 * One PostgreSQL failover under load (issue 38 item 6). A throwaway primary
 * and its synchronous streaming replica (support/pg-cluster.ts, made once for
 * this file); a service process pointed at both through a multi-host
 * DATABASE_URL with target_session_attrs=read-write; a few clients creating
 * payments through /v1. The primary is stopped as in a crash and the replica
 * promoted: writes resume on it within 10 s, only 201 or 503 are answered
 * meanwhile, every 201 is readable afterwards, and a 503 retried with its
 * externalId makes exactly one payment. PostgreSQL only, like the other
 * outage tests (the PostgreSQL pass runs it; PGlite has no servers to lose).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres } from '../support/database';
import { call, validPayment } from '../support/http';
import { eventually } from '../support/outbox-events';
import { canMakeCluster, makePgCluster, type PgCluster } from '../support/pg-cluster';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';

const CLIENTS = 4;
/** Creates acknowledged before the crash, and after writes resume: the load is counted, not timed. */
const BEFORE = 40;
const AFTER = 40;
const RESUME_BUDGET_MS = 10_000;

interface Create {
  externalId: string;
  body: Record<string, unknown>;
  startedAt: number;
  answeredAt: number;
  status: number;
  error?: string;
  retryAfter: string | null;
  id?: string;
}

describe.skipIf(!onPostgres || !canMakeCluster)('PostgreSQL failover: the replica promoted under load (PostgreSQL only)', () => {
  let cluster: PgCluster;
  let service: ServiceProcess;
  const dataDir = mkdtempSync(join(tmpdir(), 'payments-failover-'));

  beforeAll(async () => {
    cluster = await makePgCluster();
    service = await startServiceProcess(
      {
        DATA_DIR: dataDir,
        DATABASE_URL: `postgres://postgres@127.0.0.1:${cluster.primary.port},127.0.0.1:${cluster.replica.port}/${cluster.database}?target_session_attrs=read-write`,
        SEED_DEMO: 'true',
        RATE_LIMIT_PAYMENTS_CREATE: '100000',
        RATE_LIMIT_DEFAULT: '100000',
      },
      // The service migrates the new cluster's empty database first.
      90_000,
    );
  }, 180_000);

  afterAll(async () => {
    await service?.stop();
    await cluster?.remove();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('resumes writes on the promoted replica within 10 s, answering only 201 or 503, losing no 201 and making one payment per retried externalId', async () => {
    const creates: Create[] = [];
    let running = true;
    const client = async () => {
      while (running) {
        const body = validPayment();
        const startedAt = Date.now();
        const reply = await call(service.url, 'POST', '/v1/payments', { key: service.apiKey, body });
        creates.push({ externalId: body.externalId, body, startedAt, answeredAt: Date.now(), status: reply.status, error: reply.body?.error, retryAfter: reply.headers.get('retry-after'), id: reply.body?.id });
      }
    };
    const created = () => creates.filter((create) => create.status === 201).length;
    const clients = Array.from({ length: CLIENTS }, client);

    await eventually(async () => created() >= BEFORE, 30_000, `${BEFORE} creates before the crash`);
    const crashedAt = Date.now();
    await cluster.primary.stop('immediate');
    await cluster.replica.promote();
    const promotedMs = Date.now() - crashedAt;
    // Writes resumed: a create sent after the crash acknowledged.
    const firstAfter = await eventually(async () => creates.find((create) => create.startedAt > crashedAt && create.status === 201), RESUME_BUDGET_MS + 5_000, 'a create acknowledged after the crash');
    const resumeMs = firstAfter.answeredAt - crashedAt;
    const createdAtResume = created();
    await eventually(async () => created() >= createdAtResume + AFTER, 30_000, `${AFTER} creates after writes resumed`);
    running = false;
    await Promise.all(clients);

    const statuses = creates.reduce<Record<number, number>>((counts, create) => ({ ...counts, [create.status]: (counts[create.status] ?? 0) + 1 }), {});
    // On failure, the service's own error lines say which failure was not read as "database unreachable".
    const errorLines = () => service.output().split('\n').filter((line) => /"level":50|internal_error/.test(line)).slice(0, 5).join('\n');
    expect(creates.filter((create) => ![201, 503].includes(create.status)).map((create) => `${create.status} ${create.error}`), `only 201 or 503; the service logged:\n${errorLines()}`).toEqual([]);
    for (const create of creates.filter((create) => create.status === 503)) {
      expect(create.error).toBe('service_unavailable');
      expect(Number(create.retryAfter)).toBeGreaterThanOrEqual(1);
    }
    expect(resumeMs).toBeLessThan(RESUME_BUDGET_MS);

    // Every acknowledged create is on the new primary; every 503 retried with its externalId is answered once.
    const acknowledged = creates.filter((create) => create.status === 201);
    for (const create of acknowledged) expect((await call(service.url, 'GET', `/v1/payments/${create.id}`, { key: service.apiKey })).status, create.id).toBe(200);
    const unavailable = creates.filter((create) => create.status === 503);
    for (const create of unavailable) {
      const again = await call(service.url, 'POST', '/v1/payments', { key: service.apiKey, body: create.body });
      expect([200, 201], `${again.status} ${again.text}`).toContain(again.status);
    }
    const externalIds = creates.map((create) => create.externalId);
    const rows = await cluster.replica.query<{ external_id: string; n: string }>('select external_id, count(*) as n from payments where external_id = any($1) group by external_id', [externalIds]);
    expect(rows.filter((row) => Number(row.n) !== 1)).toEqual([]);
    expect(rows).toHaveLength(new Set(externalIds).size);

    console.log(
      `failover: ${creates.length} creates by ${CLIENTS} clients ${JSON.stringify(statuses)}; replica promoted ${promotedMs} ms after the crash; ` +
        `first create acknowledged ${resumeMs} ms after the crash; ${unavailable.length} creates answered 503 and retried once each, ${rows.length} payments for ${new Set(externalIds).size} externalIds`,
    );
  }, 120_000);
});
