/**
 * The service under the volume benchmark: the production build (dist/) on a
 * PostgreSQL database of its own, the gateway_a sandbox simulator beside it,
 * and a tenant configured through the operator CLI as an operator would.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const node = process.execPath;
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
export const freePort = () => new Promise((resolve) => {
  const probe = net.createServer();
  probe.listen(0, '127.0.0.1', () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});

/** A node process in its own group (stopped with everything it started), its last output kept for errors. */
export function startProcess(args, env) {
  const child = spawn(node, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  const keep = (chunk) => { output = (output + chunk).slice(-20_000); };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.output = () => output;
  child.stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try { process.kill(-child.pid, 'SIGTERM'); } catch {}
    await Promise.race([exited, sleep(15_000)]);
  };
  return child;
}

export async function waitHttp(url, child, ms = 180_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (child.exitCode !== null) break;
    try { if ((await fetch(url)).status < 500) return; } catch {}
    await sleep(300);
  }
  throw new Error(`not up: ${url}\n${child.output()}`);
}

/** The resident set of a process, in bytes, as the kernel counts it. */
export const rssOf = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;

const TOKEN = 'volume-bench-admin-token-0123456789abcdef0123';
const MASTER_KEY = Buffer.alloc(32, 9).toString('base64');
export const SIM_CREDENTIALS = { secretKey: 'sk_sim_volume_key_0001', webhookSecret: 'whsec_sim_volume_secret' };

/** The gateway_a sandbox simulator, for the whole run (the tenant's gateway account names its address). */
export async function startSimulator() {
  const port = await freePort();
  const simulator = startProcess(['dist/sandbox/simulator/main.js', 'gateway_a', '--port', String(port), '--credentials', JSON.stringify(SIM_CREDENTIALS)], {});
  await waitHttp(`http://127.0.0.1:${port}/`, simulator);
  return { url: `http://127.0.0.1:${port}`, stop: () => simulator.stop() };
}

/** One service node on `databaseUrl`; `quiet`: no background jobs. */
export async function startService(databaseUrl, { redisUrl, redisPrefix, simulatorUrl, quiet = false }) {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'payments-volume-'));
  const service = startProcess(['dist/main.js'], {
    // NODE_ENV=development, as the side-by-side bench runs it: production refuses the simulator's http:// base URL.
    ADMIN_TOKEN: TOKEN, MASTER_KEY, NODE_ENV: 'development', DATA_DIR: dataDir, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn', SEED_DEMO: 'false',
    DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, REDIS_KEY_PREFIX: redisPrefix, PORT: String(port),
    ...(quiet ? { WEBHOOK_DISPATCHER: 'false', RECONCILIATION: 'false' } : {}),
  });
  const url = `http://127.0.0.1:${port}`;
  // Generous: on a reused database a newer build first runs its migrations, an index over millions of rows included.
  await waitHttp(`${url}/readyz`, service, 30 * 60_000);
  return {
    url, token: TOKEN, pid: service.pid, simulatorUrl,
    stop: async () => {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The operator CLI against the service, as JSON. */
export const operatorCli = (service) => (...args) =>
  JSON.parse(execFileSync(node, ['bin/payments-admin.js', '--url', service.url, '--token', service.token, '--json', ...args], { encoding: 'utf8' }));

/** A merchant: organization, project, sandbox environment, API key (limits out of the way), gateway_a serving Pix, an owner who logs in to the dashboard. */
export async function createTenant(service) {
  const cli = operatorCli(service);
  const organization = cli('org', 'create', '--name', 'Loja Exemplo');
  const project = cli('project', 'create', '--org', organization.id, '--name', 'Loja');
  const environment = cli('env', 'create', '--project', project.id, '--kind', 'sandbox');
  const key = cli('key', 'create', '--env', environment.id, '--name', 'volume');
  cli('key', 'limits', key.id, '--payments-create', '1000000', '--default', '1000000');
  cli('gateway', 'set', '--env', environment.id, '--gateway', 'gateway_a', '--base-url', service.simulatorUrl, '--credentials', JSON.stringify(SIM_CREDENTIALS));
  cli('route', 'set', 'PIX', 'gateway_a', '--env', environment.id);
  return { organizationId: organization.id, environmentId: environment.id, apiKey: key.secret };
}
