#!/usr/bin/env node
// The volume benchmark (see bench/README.md): one environment grown from size to size, every request the dashboard,
// the operator API and /v1 make measured at each, one at a time. From the project root:
//   npm run bench:volume -- --sizes 10000,500000,2000000 [--samples 30] [--warmups 3] [--no-explain] [--no-build]
//                           [--reuse] [--seed-only]
// Needs PostgreSQL (BENCH_PG, default postgres://postgres@127.0.0.1:5432, superuser: it creates the databases and loads
// auto_explain on them) and Redis (REDIS_URL, default redis://127.0.0.1:6379). Each size has a database of its own,
// `<BENCH_DB>_<size>` (BENCH_DB default volume_bench), kept afterwards to look at. A run drops and seeds them, unless
// --reuse finds one already seeded to its size: seeding takes minutes at 2M and may run while the machine is busy
// (--seed-only), the measurements then on a quiet machine (--reuse).
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { seedEndpoint, seedVolume } from './volume/seed.mjs';
import { SIM_CREDENTIALS, createTenant, rssOf, startService, startSimulator } from './volume/service.mjs';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,500000,2000000' },
    samples: { type: 'string', default: '30' },
    warmups: { type: 'string', default: '3' },
    'no-explain': { type: 'boolean', default: false },
    /** Measure the dist/ already built (a re-run of the same commit). */
    'no-build': { type: 'boolean', default: false },
    /** Measure the databases a previous run seeded to these sizes instead of seeding them again. */
    reuse: { type: 'boolean', default: false },
    /** Seed (or find, with --reuse) each size's database and stop: no service measured. */
    'seed-only': { type: 'boolean', default: false },
  },
});
const SIZES = args.sizes.split(',').map(Number);
if (SIZES.some((n, i) => !Number.isInteger(n) || n < 1000 || (i > 0 && n <= SIZES[i - 1]))) throw new Error('--sizes: increasing integers of at least 1000');
const SAMPLES = Number(args.samples);
const WARMUPS = Number(args.warmups);
const PG = process.env.BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432';
const DB = process.env.BENCH_DB ?? 'volume_bench';
const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PG_LOG = process.env.BENCH_PG_LOG ?? '/var/log/postgresql/postgresql-15-main.log';
/** Issue 39's budgets: operator reads within 100 ms median / 250 ms p95; growth from the smallest size at most 2× (1.3× for /v1). */
const BUDGET = { median: 100, p95: 250, growth: 2, v1Growth: 1.3 };
/** How long the CSV export may run before it is cut (the rows sent by then are reported). */
const EXPORT_LIMIT_S = Number(process.env.BENCH_EXPORT_LIMIT_S ?? 600);

const log = (...line) => console.error(`[${new Date().toISOString().slice(11, 19)}]`, ...line);
const median = (values) => percentile(values, 50);
function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function client(database) {
  const c = new pg.Client({ connectionString: `${PG}/${database}` });
  await c.connect();
  return c;
}

/** An opaque list cursor as the service hands them out (domain/listing/cursor.ts): the list, and the key and id of the last row shown. */
const cursorAt = (list, key, id) => Buffer.from(JSON.stringify({ l: list, k: key, i: id })).toString('base64url');

/**
 * Every request measured, in the issue's order: [name, group, request()], where request returns a fetch Response.
 * `group`: 'v1' (the public API, budget 1.3× growth) or 'operator' (lists, search, overview: 100/250 ms and 2×).
 */
function requests(service, tenant, probe) {
  const v1 = (path, init = {}) => fetch(`${service.url}${path}`, { ...init, headers: { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json', ...init.headers } });
  const op = (procedure, input) => fetch(`${service.url}/internal/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers: { authorization: `Bearer ${service.token}` } });
  const env = { environmentId: tenant.environmentId };
  const list = (input) => op('payments.list', { ...env, ...input });
  let created = 0;
  const run = Date.now().toString(36);
  return [
    ['POST /v1/payments', 'v1', () => v1('/v1/payments', { method: 'POST', body: JSON.stringify({ amount: 2590, method: 'pix', externalId: `bench-${run}-${created++}`, customer: { name: 'Conceição Araújo', email: 'conceicao.araujo@uol.com.br', document: '52998224725' } }) })],
    ['GET /v1/payments/{id}', 'v1', () => v1(`/v1/payments/${probe.paymentId}`)],
    ['GET /v1/payments?externalId=', 'v1', () => v1(`/v1/payments?externalId=${probe.externalId}`)],
    ['GET /v1/events first page', 'v1', () => v1('/v1/events')],
    ['GET /v1/events from the middle', 'v1', () => v1(`/v1/events?after=${probe.eventId}`)],
    ['payments.list first page', 'operator', () => list({})],
    ['payments.list deep page (cursor in the middle)', 'operator', () => list({ cursor: probe.paymentCursor })],
    ['payments.list sorted by amount', 'operator', () => list({ sort: 'amount_desc' })],
    ['payments.list paid + card', 'operator', () => list({ status: 'paid', method: 'card' })],
    ['search "joao" (name)', 'operator', () => list({ search: 'joao' })],
    ['search "Silva" (name)', 'operator', () => list({ search: 'Silva' })],
    ['search "25.07" (amount)', 'operator', () => list({ search: '25.07' })],
    ['search e-mail prefix', 'operator', () => list({ search: probe.emailPrefix })],
    ['search externalId prefix', 'operator', () => list({ search: probe.externalIdPrefix })],
    ['search exact id', 'operator', () => list({ search: probe.paymentId })],
    ['subscriptions.list first page', 'operator', () => op('subscriptions.list', env)],
    ['refunds.list first page', 'operator', () => op('refunds.list', env)],
    ['webhooks.listDeliveries first page', 'operator', () => op('webhooks.listDeliveries', env)],
    ['audit.list first page', 'operator', () => op('audit.list', { organizationId: tenant.organizationId })],
    ['overview.summary (30 days)', 'operator', () => op('overview.summary', { ...env, days: 30 })],
    ['overview.backlog (Home: deliveries owed)', 'operator', () => op('overview.backlog', env)],
    ['overview.outage (Home: the banner)', 'operator', () => op('overview.outage', env)],
    ['reconciliation.status', 'operator', () => op('reconciliation.status', env)],
  ];
}

/** One request, timed to its last byte; a non-2xx answer fails the run (a fast error is not a fast page). */
async function timed(name, request) {
  const started = performance.now();
  const response = await request();
  const body = await response.text();
  const ms = performance.now() - started;
  if (response.status >= 300) throw new Error(`${name}: ${response.status} ${body.slice(0, 500)}`);
  return ms;
}

async function measure(service, tenant, probe) {
  const rows = [];
  for (const [name, group, request] of requests(service, tenant, probe)) {
    for (let i = 0; i < WARMUPS; i++) await timed(name, request);
    const times = [];
    for (let i = 0; i < SAMPLES; i++) times.push(await timed(name, request));
    rows.push({ name, group, median: median(times), p95: percentile(times, 95) });
    log(`${name}: median ${median(times).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms`);
  }
  return rows;
}

/**
 * The CSV export of every payment of the environment, as the dashboard's "Export CSV" downloads it: time to the first
 * byte and to the end, the service's resident memory growth (sampled every 50 ms from /proc), and single-payment reads
 * made one after another meanwhile.
 */
async function measureExport(service, tenant, probe) {
  const cookie = await dashboardSession(service, tenant);
  const rssBefore = rssOf(service.pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => { rssPeak = Math.max(rssPeak, rssOf(service.pid)); }, 50);
  let exporting = true;
  const reads = [];
  const reader = (async () => {
    while (exporting) {
      const started = performance.now();
      const response = await fetch(`${service.url}/v1/payments/${probe.paymentId}`, { headers: { authorization: `Bearer ${tenant.apiKey}` } });
      await response.arrayBuffer();
      reads.push({ ms: performance.now() - started, status: response.status });
    }
  })();
  const started = performance.now();
  let firstByteMs = null;
  let bytes = 0;
  let lines = 0;
  let finished = false;
  // An export that has not ended after EXPORT_LIMIT_S is cut and reported with the rows it had sent.
  const abort = new AbortController();
  const limit = setTimeout(() => abort.abort(), EXPORT_LIMIT_S * 1000);
  try {
    const response = await fetch(`${service.url}/internal/export/payments.csv?environmentId=${tenant.environmentId}`, { headers: { cookie }, signal: abort.signal });
    if (response.status !== 200) throw new Error(`export: ${response.status} ${await response.text()}`);
    for await (const chunk of response.body) {
      firstByteMs ??= performance.now() - started;
      bytes += chunk.length;
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
    }
    finished = true;
  } catch (error) {
    if (!abort.signal.aborted) throw error;
  } finally {
    clearTimeout(limit);
    exporting = false;
    clearInterval(sampler);
    await reader;
  }
  const times = reads.map((read) => read.ms);
  return {
    finished, rows: Math.max(0, lines - 1), firstByteMs, totalMs: performance.now() - started, megabytes: bytes / 1e6, rssGrowthMb: (rssPeak - rssBefore) / 2 ** 20,
    concurrentReads: reads.length, concurrentReadMedian: median(times), concurrentReadP95: percentile(times, 95), concurrentReadFailures: reads.filter((read) => read.status !== 200).length,
  };
}

/**
 * The dashboard's session of the tenant's owner: the export is a download of the dashboard. The owner is made on the
 * first export of a database (a reused database has it already: 409).
 */
async function dashboardSession(service, tenant) {
  const op = async (procedure, input) => {
    const response = await fetch(`${service.url}/internal/trpc/${procedure}`, { method: 'POST', headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' }, body: JSON.stringify(input) });
    if (response.status !== 200 && response.status !== 409) throw new Error(`${procedure}: ${response.status} ${await response.text()}`);
  };
  const email = 'owner@loja-exemplo.com.br';
  const password = 'volume bench owner password 1';
  await op('users.create', { email, password });
  await op('members.add', { organizationId: tenant.organizationId, email, role: 'owner' });
  const login = await fetch(`${service.url}/internal/trpc/auth.login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  if (login.status !== 200) throw new Error(`auth.login: ${login.status} ${await login.text()}`);
  return login.headers.get('set-cookie').split(';')[0];
}

/** Rows and bytes of the tables that grow with payments (table, indexes and TOAST). */
async function sizes(db) {
  const rows = [];
  for (const table of ['payments', 'events', 'webhook_deliveries', 'webhook_attempts', 'refunds', 'subscriptions']) {
    const { rows: [row] } = await db.query(`select '${table}' as table, (select count(*) from ${table}) as rows, pg_total_relation_size('${table}') as bytes`);
    rows.push(row);
  }
  const total = (await db.query('select pg_database_size(current_database()) as bytes')).rows[0].bytes;
  return { tables: rows.map((row) => ({ table: row.table, rows: Number(row.rows), bytes: Number(row.bytes), bytesPerRow: Math.round(Number(row.bytes) / Math.max(1, Number(row.rows))) })), databaseBytes: Number(total) };
}

/** What the requests read: a payment and an event in the middle of the environment, the cursor of the middle row, search terms that match. */
async function probeOf(db, environmentId, size) {
  const middle = Math.floor(size / 2);
  const payment = (await db.query(`select id, external_id, customer_email from payments where environment_id = $1 and external_id = $2`, [environmentId, `order-${middle}`])).rows[0];
  const row = (await db.query(`select id, created_at from payments where environment_id = $1 order by created_at desc, id desc offset $2 limit 1`, [environmentId, middle])).rows[0];
  const event = (await db.query(`select id from events where environment_id = $1 order by sequence offset $2 limit 1`, [environmentId, middle])).rows[0];
  return {
    paymentId: payment.id, externalId: payment.external_id, eventId: event.id,
    paymentCursor: cursorAt('payments', row.created_at.toISOString(), row.id),
    emailPrefix: payment.customer_email.slice(0, payment.customer_email.indexOf('@') + 2),
    externalIdPrefix: `order-${String(middle).slice(0, 4)}`,
  };
}

/**
 * The plans PostgreSQL chose for what the service ran, with actual rows (auto_explain with ANALYZE, loaded for this
 * database only): the service is restarted so its connections load it, each operator request runs once after a marker
 * statement, and the server's log is read back from where it was.
 */
async function explainPlans(admin, database, tenant, probe, serviceOptions) {
  await admin.query(`alter database ${database} set session_preload_libraries = 'auto_explain'`);
  for (const [name, value] of [['log_min_duration', '0'], ['log_analyze', 'on'], ['log_buffers', 'on'], ['log_timing', 'off'], ['log_nested_statements', 'on']]) {
    await admin.query(`alter database ${database} set auto_explain.${name} = '${value}'`);
  }
  // No background job runs meanwhile, so each group holds only its request's statements.
  const service = await startService(`${PG}/${database}`, { ...serviceOptions, quiet: true });
  const db = await client(database);
  const start = statSync(PG_LOG).size;
  try {
    for (const [name, group, request] of requests(service, tenant, probe)) {
      if (group !== 'operator') continue;
      await db.query(`select $1::text as bench_request`, [name]);
      await timed(name, request);
    }
    await db.query(`select 'end' as bench_request`);
  } finally {
    await db.end();
    await service.stop();
    await admin.query(`alter database ${database} reset all`);
  }
  const length = statSync(PG_LOG).size - start;
  const buffer = Buffer.alloc(length);
  const fd = openSync(PG_LOG, 'r');
  readSync(fd, buffer, 0, length, start);
  closeSync(fd);
  // A log entry starts with the line prefix (`%m [%p] %q%u@%d `); auto_explain's plan lines follow it, indented.
  const entries = [];
  for (const line of buffer.toString('utf8').split('\n')) {
    if (/^\d{4}-\d\d-\d\d /.test(line)) entries.push(line);
    else if (entries.length) entries[entries.length - 1] += `\n${line}`;
  }
  // Grouped by the marker before them; the marker's own plan is left out.
  const groups = [];
  let current = null;
  for (const entry of entries) {
    if (!entry.includes(`@${database} `) || !entry.includes('plan:')) continue;
    if (entry.includes('bench_request')) {
      current = entry.includes("select 'end'") ? null : [];
      if (current) groups.push(current);
      continue;
    }
    current?.push(entry.slice(entry.indexOf('duration:')));
  }
  return groups;
}

// ---------------------------------------------------------------------------------------------------------------------

/**
 * The database of one size, seeded and ready: `{ database, tenant, seedSeconds }`. The tenant made on it (its API key
 * included: a sandbox key of a benchmark database) is kept in a table of its own, `bench_volume`, with the size it was
 * seeded to, so --reuse can measure it again.
 */
async function prepare(admin, size, simulator) {
  const database = `${DB}_${size}`;
  const exists = (await admin.query('select 1 from pg_database where datname = $1', [database])).rowCount > 0;
  if (exists && args.reuse) {
    const db = await client(database);
    try {
      const { rows: [state] } = await db.query(`select state from bench_volume where (state->>'seededTo')::int = $1`, [size]).catch(() => ({ rows: [] }));
      if (state) {
        log(`${database}: reused (seeded to ${size.toLocaleString('en')})`);
        return { database, tenant: state.state.tenant, seedSeconds: state.state.seedSeconds };
      }
    } finally {
      await db.end();
    }
  }
  await admin.query(`drop database if exists ${database} with (force)`);
  await admin.query(`create database ${database}`);
  const service = await startService(`${PG}/${database}`, serviceOptionsOf(database, simulator)); // migrates it
  let tenant;
  try {
    tenant = await createTenant(service);
  } finally {
    await service.stop();
  }
  const db = await client(database);
  try {
    const endpointId = await seedEndpoint(db, tenant.environmentId);
    const started = Date.now();
    await seedVolume(db, { environmentId: tenant.environmentId, to: size, now: new Date(), endpointId, progress: (done) => log(`${database}: seeded ${done.toLocaleString('en')} payments`) });
    log(`${database}: vacuum analyze`);
    await db.query('vacuum analyze');
    const seedSeconds = (Date.now() - started) / 1000;
    await db.query('create table bench_volume (state jsonb not null)');
    await db.query('insert into bench_volume (state) values ($1)', [{ seededTo: size, tenant, seedSeconds }]);
    return { database, tenant, seedSeconds };
  } finally {
    await db.end();
  }
}

/** Each database its own Redis prefix, so rate limits and counters of one size never reach another's. */
const serviceOptionsOf = (database, simulator) => ({ redisUrl: REDIS, redisPrefix: `${database}_${Date.now().toString(36)}:`, simulatorUrl: simulator.url });

if (!args['no-build']) execFileSync(process.execPath, ['build.mjs'], { stdio: 'inherit' });
const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no', 'server'], { encoding: 'utf8' }).trim() !== '';
const admin = await client('postgres');
const simulator = await startSimulator();
const results = [];
let last = null;
let service = null;
try {
  for (const size of SIZES) {
    const prepared = await prepare(admin, size, simulator);
    if (args['seed-only']) continue;
    const { database, tenant, seedSeconds } = prepared;
    // Every size starts from a fresh node, as after a deploy; the simulator's address may differ from the seeding run's.
    service = await startService(`${PG}/${database}`, serviceOptionsOf(database, simulator));
    execFileSync(process.execPath, ['bin/payments-admin.js', '--url', service.url, '--token', service.token, '--json', 'gateway', 'set', '--env', tenant.environmentId, '--gateway', 'gateway_a', '--base-url', simulator.url, '--credentials', JSON.stringify(SIM_CREDENTIALS)], { stdio: 'ignore' });
    const db = await client(database);
    try {
      // The build may have just migrated a reused database (a new column, new statistics): plans read fresh statistics,
      // as they would once autovacuum has passed after such a migration.
      await db.query('analyze');
      const probe = await probeOf(db, tenant.environmentId, size);
      const rows = await measure(service, tenant, probe);
      log('export');
      const exported = await measureExport(service, tenant, probe);
      const stored = await sizes(db);
      const result = { size, commit, dirty, seedSeconds, rows, exported, stored };
      results.push(result);
      console.log(JSON.stringify(result));
      last = { database, tenant, probe };
    } finally {
      await db.end();
      await service.stop();
      service = null;
    }
  }
  if (!args['seed-only']) {
    const plans = args['no-explain'] ? null : await explainPlans(admin, last.database, last.tenant, last.probe, serviceOptionsOf(last.database, simulator));
    report(results, plans);
  }
} finally {
  await service?.stop();
  await simulator.stop();
  await admin.end();
}

function report(results, plans) {
  const first = results[0];
  const last = results.at(-1);
  const fmt = (ms) => (ms >= 100 ? Math.round(ms).toLocaleString('en') : ms.toFixed(1));
  console.log(`\n## Volume benchmark at ${commit}${dirty ? ' (with uncommitted server changes)' : ''}: ${SAMPLES} samples after ${WARMUPS} warm-ups, one request at a time\n`);
  console.log(`| request | ${results.map((r) => `${r.size.toLocaleString('en')}: median / p95 ms`).join(' | ')} | growth (median) | within budget at ${last.size.toLocaleString('en')} |`);
  console.log(`|---|${results.map(() => '---|').join('')}---|---|`);
  for (const [i, row] of last.rows.entries()) {
    const growth = row.median / first.rows[i].median;
    const withinTime = row.group === 'v1' || (row.median <= BUDGET.median && row.p95 <= BUDGET.p95);
    const withinGrowth = growth <= (row.group === 'v1' ? BUDGET.v1Growth : BUDGET.growth);
    const verdict = withinTime && withinGrowth ? 'yes' : `**no** (${[!withinTime && 'time', !withinGrowth && 'growth'].filter(Boolean).join(', ')})`;
    console.log(`| ${row.name} | ${results.map((r) => `${fmt(r.rows[i].median)} / ${fmt(r.rows[i].p95)}`).join(' | ')} | ${growth.toFixed(2)}× | ${verdict} |`);
  }
  console.log(`\n| CSV export of every payment | ${results.map((r) => r.size.toLocaleString('en')).join(' | ')} |\n|---|${results.map(() => '---|').join('')}`);
  const line = (label, pick) => console.log(`| ${label} | ${results.map((r) => pick(r.exported)).join(' | ')} |`);
  line('rows sent', (e) => `${e.rows.toLocaleString('en')}${e.finished ? '' : ` (**cut after ${EXPORT_LIMIT_S} s**)`}`);
  line('first byte ms', (e) => fmt(e.firstByteMs));
  line('total s', (e) => (e.totalMs / 1000).toFixed(1));
  line('rows per second', (e) => Math.round(e.rows / (e.totalMs / 1000)).toLocaleString('en'));
  line('MB sent', (e) => e.megabytes.toFixed(0));
  line('service RSS growth MB', (e) => e.rssGrowthMb.toFixed(0));
  line('concurrent GET /v1/payments/{id} median / p95 ms (n)', (e) => `${fmt(e.concurrentReadMedian)} / ${fmt(e.concurrentReadP95)} (${e.concurrentReads}${e.concurrentReadFailures ? `, ${e.concurrentReadFailures} failed` : ''})`);
  console.log(`\n| stored at ${last.size.toLocaleString('en')} | rows | total bytes | bytes per row |\n|---|---|---|---|`);
  for (const t of last.stored.tables) console.log(`| ${t.table} | ${t.rows.toLocaleString('en')} | ${(t.bytes / 2 ** 20).toFixed(0)} MiB | ${t.bytesPerRow.toLocaleString('en')} |`);
  console.log(`| (database) | | ${(last.stored.databaseBytes / 2 ** 20).toFixed(0)} MiB | |`);
  console.log(`\nSeeding: ${results.map((r) => `${r.size.toLocaleString('en')} in ${r.seedSeconds.toFixed(0)} s`).join(', ')} (each size in a database of its own; a reused database shows the seeding of the run that made it).`);
  if (!plans) return;
  console.log(`\n## Plans at ${last.size.toLocaleString('en')} (auto_explain, actual rows), in request order\n`);
  let n = 0;
  const names = last.rows.filter((row) => row.group === 'operator').map((row) => row.name);
  for (const entries of plans) {
    console.log(`### ${names[n++] ?? '?'}\n\n\`\`\`\n${entries.join('\n\n')}\n\`\`\`\n`);
  }
}
