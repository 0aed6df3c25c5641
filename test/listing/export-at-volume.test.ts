/**
 * The CSV export streams at any size (issue 39 item 2): 200,000 payments of
 * one environment, seeded with SQL, downloaded over HTTP from a service
 * running as its own process on PostgreSQL (so its memory and event loop are
 * its own, not the test's). Every row comes once; rows start arriving while
 * the rest is still being read; reads of single payments made meanwhile all
 * succeed, their median within a few times what it was just before the
 * export (its event-loop delay p99, its own monitorEventLoopDelay read from
 * /metrics over the export's span, is printed: on a shared 2-core host it
 * moves with others' load); the service's resident memory grows by at most
 * the issue's 100 MB (PostgreSQL writes the CSV and the service passes its
 * bytes on: 16-18 MB measured); and the export reads each row a bounded
 * number of times (PostgreSQL's own counters of index entries read: the
 * COPY walks the order's index once, not a sort of the whole environment).
 * Timings are printed, not budgeted: the issue's figures (2 million rows,
 * first byte within 1 s) are measured by bench/volume.mjs.
 * PostgreSQL only: volume and a second process are what this is about.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedVolume } from '../../bench/volume/seed.mjs';
import { createTestDatabase, onPostgres, type TestDatabase } from '../support/database';
import { eventually } from '../support/outbox-events';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';

const ROWS = 200_000;
const MB = 1024 * 1024;

/** The service process's resident set, as the kernel counts it. */
const rssOf = (pid: number): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

describe.skipIf(!onPostgres)(`CSV export of ${ROWS.toLocaleString('en')} payments (PostgreSQL only)`, () => {
  let database: TestDatabase;
  let service: ServiceProcess;
  let db: pg.Client;
  let adminToken: string;
  let cookie: string;
  let environmentId: string;
  const dataDir = mkdtempSync(join(tmpdir(), 'payments-export-volume-'));

  beforeAll(async () => {
    database = await createTestDatabase({ migrated: true });
    if (database.config.kind !== 'postgresql') throw new Error('PostgreSQL only');
    service = await startServiceProcess({ DATA_DIR: dataDir, DATABASE_URL: database.config.url, SEED_DEMO: 'true', RATE_LIMIT_DEFAULT: '1000000' }, 120_000);
    adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const whoAmI = await fetch(`${service.url}/v1/auth/test`, { headers: { authorization: `Bearer ${service.apiKey}` } });
    environmentId = ((await whoAmI.json()) as { environment: { id: string } }).environment.id;
    // The demo's dashboard user, as a browser logs in: the export is a download of the dashboard's session.
    const login = await fetch(`${service.url}/internal/trpc/auth.login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'demo@example.com', password: readFileSync(join(dataDir, 'demo-dashboard-password'), 'utf8').trim() }),
    });
    expect(login.status).toBe(200);
    cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    db = new pg.Client({ connectionString: database.config.url });
    await db.connect();
    await seedVolume(db, { environmentId, to: ROWS });
    await db.query('analyze payments');
  }, 900_000);

  afterAll(async () => {
    await db?.end();
    await service?.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /**
   * Index entries PostgreSQL has read on the payments table, outside its primary key (what the lists and the export
   * scan; the concurrent reads by id use the primary key), as its statistics show them.
   */
  const indexEntriesRead = async (): Promise<number> => {
    await db.query('select pg_stat_clear_snapshot()');
    const { rows } = await db.query(`select coalesce(sum(idx_tup_read), 0) as n from pg_stat_user_indexes where relname = 'payments' and indexrelname <> 'payments_pkey'`);
    return Number(rows[0].n);
  };

  /** The service's event-loop delay p99 since the last scrape (prom-client resets its monitorEventLoopDelay histogram on each). */
  const loopDelayP99 = async (): Promise<number> => {
    const metrics = await (await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${adminToken}` } })).text();
    return Number(/^nodejs_eventloop_lag_p99_seconds (\S+)$/m.exec(metrics)![1]) * 1000;
  };

  interface ExportRun {
    expected: number;
    lines: number;
    ids: Set<string>;
    rest: string;
    firstRowMs: number;
    rssGrowth: number;
    loopP99: number;
    readsDuring: number;
    reads: { status: number; ms: number }[];
    baselineMedian: number;
  }

  /** Downloads the export of every payment as the dashboard does, measuring the service meanwhile. */
  async function runExport(): Promise<ExportRun> {
    // Sequential scans (the database holds this one environment's payments): they add nothing to the indexes' counts.
    const expected = Number((await db.query('select count(*) from payments')).rows[0].count);
    const sampleIds = (await db.query('select id from payments order by md5(id) limit 50')).rows.map((row) => row.id as string);
    const readOne = async (id: string) => {
      const started = performance.now();
      const response = await fetch(`${service.url}/v1/payments/${id}`, { headers: { authorization: `Bearer ${service.apiKey}` } });
      await response.arrayBuffer();
      return { status: response.status, ms: performance.now() - started };
    };
    await readOne(sampleIds[0]!); // the route warmed up before the baseline
    // The same reads, one at a time, before the export: what "keeps answering" is measured against on this host as loaded now.
    const baseline: number[] = [];
    for (let i = 0; i < 40; i++) baseline.push((await readOne(sampleIds[i % sampleIds.length]!)).ms);
    const readsBefore = await indexEntriesRead();
    const rssBefore = rssOf(service.child.pid!);
    await loopDelayP99(); // starts the event-loop histogram afresh: the next scrape covers the export

    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssOf(service.child.pid!))), 50);
    let exporting = true;
    const reads: { status: number; ms: number }[] = [];
    const reader = (async () => {
      for (let i = 0; exporting; i++) reads.push(await readOne(sampleIds[i % sampleIds.length]!));
    })();

    const started = performance.now();
    let firstRowMs = NaN;
    let lines = 0;
    let rest = '';
    const ids = new Set<string>();
    try {
      const response = await fetch(`${service.url}/internal/export/payments.csv?environmentId=${environmentId}`, { headers: { cookie } });
      if (response.status !== 200) throw new Error(`export: ${response.status} ${await response.text()}`);
      const decoder = new TextDecoder();
      for await (const chunk of response.body!) {
        const text = rest + decoder.decode(chunk, { stream: true });
        const complete = text.split('\r\n');
        rest = complete.pop()!;
        for (const line of complete) {
          if (lines++ === 0) continue; // the header
          if (Number.isNaN(firstRowMs)) firstRowMs = performance.now() - started;
          ids.add(line.slice(0, line.indexOf(',')));
        }
      }
    } finally {
      exporting = false;
      clearInterval(sampler);
      await reader;
    }
    const totalMs = performance.now() - started;
    const loopP99 = await loopDelayP99();
    // Statistics reach PostgreSQL's counters when a session goes idle (at most a second or so later): waited for, not assumed.
    const readsDuring = await eventually(async () => {
      const n = (await indexEntriesRead()) - readsBefore;
      return n >= expected ? n : undefined;
    }, 30_000, "the export's reads in pg_stat_user_indexes");

    const latencies = reads.map((read) => read.ms);
    console.log(
      `export of ${expected} rows: first row ${firstRowMs.toFixed(0)} ms, all ${totalMs.toFixed(0)} ms; service RSS +${((rssPeak - rssBefore) / MB).toFixed(1)} MB ` +
        `(${(rssBefore / MB).toFixed(0)} → peak ${(rssPeak / MB).toFixed(0)} MB); event-loop delay p99 ${loopP99.toFixed(1)} ms; ` +
        `index entries read ${readsDuring} (${(readsDuring / expected).toFixed(2)} per row); GET /v1/payments/{id} before: median ${percentile(baseline, 50).toFixed(1)} ms; ${reads.length} concurrent: ` +
        `median ${percentile(latencies, 50).toFixed(1)} ms, p95 ${percentile(latencies, 95).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms`,
    );
    return { expected, lines, ids, rest, firstRowMs, rssGrowth: rssPeak - rssBefore, loopP99, readsDuring, reads, baselineMedian: percentile(baseline, 50) };
  }

  let run: ExportRun;
  beforeAll(async () => {
    run = await runExport();
  }, 900_000);

  it('sends every row once, the first ones while the rest is still being read, and single reads made meanwhile are all answered', () => {
    expect(run.rest).toBe('');
    expect(run.lines - 1).toBe(run.expected);
    expect(run.ids.size).toBe(run.expected);
    expect(run.firstRowMs).toBeLessThan(10_000);
    expect(run.reads.length).toBeGreaterThan(0);
    expect(run.reads.filter((read) => read.status !== 200)).toEqual([]);
  });

  it('keeps single reads made meanwhile at their pace', () => {
    // Measured against the same reads just before, on the host as loaded then: an export that starved the event loop
    // (the entity-hydrating one: p99 400-730 ms) put whole batches in front of each read.
    expect(percentile(run.reads.map((read) => read.ms), 50)).toBeLessThanOrEqual(5 * run.baselineMedian);
    // The event loop's delay p99 is printed, not asserted: on this shared 2-core host it moves with others' load
    // (39-128 ms in runs minutes apart); bench/RESULTS.md records it.
  });

  it("grows the service's memory by at most 100 MB: only the COPY's buffers pass through it", () => {
    // Formatting each row in JavaScript grew it by 146-255 MB here (V8's heap growing with per-row garbage before it
    // collected); the bytes PostgreSQL writes, passed on with backpressure, by 16-18 MB.
    expect(run.rssGrowth).toBeLessThanOrEqual(100 * MB);
  });

  it("reads each row a bounded number of times: the COPY walks the order's index once", () => {
    // Linear: a plan that read the environment and sorted it would read no index; a re-read of rows, more than one each.
    expect(run.readsDuring).toBeLessThanOrEqual(3 * run.expected);
  });
});
