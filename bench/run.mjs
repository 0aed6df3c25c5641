#!/usr/bin/env node
// The project's own load benchmark (see bench/README.md). Usage, from the project root:
//   npm run bench -- [seconds=10] [connections=32] [scenarios=embedded,pg1,pg2,pg1-8keys]
// Needs PostgreSQL (BENCH_PG, default postgres://postgres@127.0.0.1:5432) and Redis (REDIS_URL, default
// redis://127.0.0.1:6379) for the PostgreSQL scenarios. Every load goes to 127.0.0.1 and is bounded in time.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';

const [secs = '10', conns = '32', which = 'embedded,pg1,pg2,pg1-8keys'] = process.argv.slice(2);
const node = process.execPath;
const PG = process.env.BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432';
const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const free = () => new Promise((res) => { const s = net.createServer(); s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => res(port)); }); });
const procs = [];

function start(args, env) {
  const p = spawn(node, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  const keep = (d) => { out = (out + d).slice(-20000); };
  p.stdout.on('data', keep); p.stderr.on('data', keep);
  procs.push(p); p.out = () => out;
  return p;
}
async function waitHttp(url, p, ms = 120000) {
  const end = Date.now() + ms;
  while (Date.now() < end) { try { const r = await fetch(url); if (r.status < 500) return; } catch {} await sleep(300); }
  throw new Error(`not up: ${url}\n${p?.out?.() ?? ''}`);
}
async function stopAll() {
  for (const p of procs.splice(0)) { try { process.kill(-p.pid, 'SIGTERM'); } catch {} }
  await sleep(process.env.BENCH_CPU_PROF ? 6000 : 1500);
}

/**
 * Closed-loop load split evenly over targets (a node and an API key each: two nodes, or eight keys of one
 * organization on one node), requests summed, latency percentiles averaged weighted by each target's requests.
 */
async function load(mode, targets, id, seconds = Number(secs)) {
  const body = (run, i) => JSON.stringify({ amount: 1990, method: 'pix', externalId: `bench_${run}_${i}`, customer: { name: 'Maria Silva', email: 'maria@example.com', document: '52998224725' } });
  const each = Math.max(1, Math.floor(Number(conns) / targets.length));
  const runs = await Promise.all(targets.map(({ base, key }, n) => {
    const run = `${Date.now().toString(36)}_${n}`;
    let i = 0;
    const opts = mode === 'get'
      ? { url: `${base}/v1/payments/${id}`, method: 'GET' }
      : { url: `${base}/v1/payments`, method: 'POST', requests: [{ setupRequest: (req) => ({ ...req, body: body(run, i++) }) }] };
    return autocannon({ ...opts, connections: each, duration: seconds, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } });
  }));
  const total = runs.reduce((n, r) => n + r.requests.total, 0);
  const weighted = (f) => Math.round(runs.reduce((n, r) => n + r.latency[f] * r.requests.total, 0) / Math.max(1, total));
  return {
    mode, rps: Math.round(runs.reduce((n, r) => n + r.requests.average, 0)), p50: weighted('p50'), p99: weighted('p99'),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0), errors: runs.reduce((n, r) => n + r.errors + r.timeouts, 0),
  };
}

async function scenario(name) {
  const token = 'bench-admin-token-0123456789abcdef0123456789';
  const masterKey = Buffer.alloc(32, 7).toString('base64');
  const creds = { secretKey: 'sk_sim_bench_key_0001', webhookSecret: 'whsec_sim_bench_secret' };
  const dataDir = mkdtempSync(join(tmpdir(), 'payments-bench-'));
  const nodes = name === 'pg2' ? 2 : 1;
  const keyCount = name === 'pg1-8keys' ? 8 : 1;
  let db = null;
  let admin = null;
  try {
    const base = { ADMIN_TOKEN: token, MASTER_KEY: masterKey, NODE_ENV: 'production', LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info', SEED_DEMO: 'false' };
    if (name !== 'embedded') {
      db = `bench_${Date.now().toString(36)}`;
      admin = new pg.Client({ connectionString: `${PG}/postgres` });
      await admin.connect();
      await admin.query(`create database ${db}`);
      Object.assign(base, { DATABASE_URL: `${PG}/${db}`, REDIS_URL: REDIS, REDIS_KEY_PREFIX: `${db}:` });
    } else {
      Object.assign(base, { NODE_ENV: 'development', DATA_DIR: dataDir });
    }
    const simPort = await free();
    const sim = start(['dist/sandbox/simulator/main.js', 'gateway_a', '--port', String(simPort), '--credentials', JSON.stringify(creds)], {});
    await waitHttp(`http://127.0.0.1:${simPort}/`, sim);
    const urls = [];
    for (let n = 0; n < nodes; n++) {
      const port = await free();
      // BENCH_CPU_PROF=<dir>: each service node writes a V8 CPU profile there when it stops.
      const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
      const svc = start([...prof, 'dist/main.js'], { ...base, PORT: String(port) });
      await waitHttp(`http://127.0.0.1:${port}/v1/health`, svc);
      urls.push(`http://127.0.0.1:${port}`);
    }
    const cli = (...a) => JSON.parse(execFileSync(node, ['bin/payments-admin.js', '--url', urls[0], '--token', token, '--json', ...a], { encoding: 'utf8' }));
    const org = cli('org', 'create', '--name', 'Bench');
    const prj = cli('project', 'create', '--org', org.id, '--name', 'Bench');
    const env = cli('env', 'create', '--project', prj.id, '--kind', 'sandbox');
    const keys = Array.from({ length: keyCount }, (_, n) => {
      const key = cli('key', 'create', '--env', env.id, '--name', `bench-${n}`);
      cli('key', 'limits', key.id, '--payments-create', '1000000', '--default', '1000000');
      return key.secret;
    });
    // One key per node (pg2), or every key on the one node (pg1-8keys).
    const targets = keyCount > 1 ? keys.map((key) => ({ base: urls[0], key })) : urls.map((base) => ({ base, key: keys[0] }));
    cli('gateway', 'set', '--env', env.id, '--gateway', 'gateway_a', '--base-url', `http://127.0.0.1:${simPort}`, '--credentials', JSON.stringify(creds));
    cli('route', 'set', 'PIX', 'gateway_a', '--env', env.id);
    // The payment the read runs fetch. Retried: a kept-alive connection from the health checks may be closed by the
    // node just as it is reused (the create is idempotent by externalId, so a retry is safe).
    const externalId = `bench_get_${Date.now()}`;
    let id;
    for (let attempt = 1; !id; attempt++) {
      try {
        const first = await fetch(`${urls[0]}/v1/payments`, { method: 'POST', headers: { authorization: `Bearer ${keys[0]}`, 'content-type': 'application/json' },
          body: JSON.stringify({ amount: 1990, method: 'pix', externalId, customer: { name: 'Maria Silva', email: 'maria@example.com', document: '52998224725' } }) });
        id = (await first.json()).id;
      } catch (error) {
        if (attempt === 3) throw error;
      }
    }
    await load('create', targets, id, 3); // warm-up (JIT, pools, caches): not counted
    const rows = [];
    for (const mode of ['create', 'get']) rows.push({ scenario: name, nodes, ...(await load(mode, targets, id)) });
    return rows;
  } finally {
    await stopAll();
    if (admin) {
      await admin.query(`drop database if exists ${db} with (force)`).catch(() => {});
      await admin.end();
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

execFileSync(node, ['build.mjs'], { stdio: 'inherit' });
const all = [];
for (const name of which.split(',')) {
  const rows = await scenario(name);
  for (const r of rows) console.log(JSON.stringify(r));
  all.push(...rows);
}
console.log(`\n| scenario | nodes | route | req/s | p50 ms | p99 ms | non-2xx | errors |\n|---|---|---|---|---|---|---|---|`);
for (const r of all) console.log(`| ${r.scenario} | ${r.nodes} | ${r.mode === 'get' ? 'GET /v1/payments/{id}' : 'POST /v1/payments'} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.errors} |`);
