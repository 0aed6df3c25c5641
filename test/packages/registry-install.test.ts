/**
 * The SDK and the merchant CLI installed as a merchant installs them: both
 * packages are built and published (`npm publish`) to a real npm registry
 * (Verdaccio, its own process, an ephemeral port, a temporary storage, no
 * uplink: nothing is fetched from anywhere else, so a dependency that was not
 * published fails the install), then installed into an empty project outside
 * the repository. With only the sandbox API key, the issue's first hour runs
 * against a started service: a Pix created with the installed SDK, paid with
 * `payments sim pay`, its `payment.paid` received through `payments listen`
 * at a local receiver (signature verified), refunded with `payments refunds
 * create`, and the events read back with `payments events list --json`.
 *
 * It runs on the PostgreSQL pass only: nothing in it depends on the database
 * (the service's storage is the other tests' business), and building both
 * packages (the SDK's declarations) takes most of its minute or two.
 */
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../sdk/src';
import { eventually } from '../support/outbox-events';
import { startReceiver, type Receiver } from '../support/receiver';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { createTenant } from '../support/tenant';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const VERDACCIO = join(REPO, 'node_modules/verdaccio/bin/verdaccio');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe.skipIf(!process.env.TEST_DATABASE_URL)('the SDK and the merchant CLI from a registry, in a project outside the repository', () => {
  let root: string;
  let app: string;
  let registry: string;
  let verdaccio: ChildProcessWithoutNullStreams | undefined;
  let sandboxed: SandboxedService;
  let receiver: Receiver;
  /** A merchant's machine: Node 22+ first on PATH, their own config and npm cache, no variable of this repository's npm run. */
  let env: NodeJS.ProcessEnv;

  const run = (command: string, args: string[], cwd: string, extra: NodeJS.ProcessEnv = {}): Promise<Run> =>
    new Promise((resolve) => {
      execFile(command, args, { cwd, env: { ...env, ...extra }, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
        resolve({ code: error ? (typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : 1) : 0, stdout, stderr }),
      );
    });
  const ok = (result: Run, what: string): string => {
    expect(result.code, `${what}\n${result.stdout}\n${result.stderr}`).toBe(0);
    return result.stdout;
  };
  /** `npx payments …` in the merchant's project. */
  const payments = (...args: string[]) => run('npx', ['--no-install', 'payments', ...args], app);

  async function startRegistry(): Promise<void> {
    const port = await freePort();
    registry = `http://127.0.0.1:${port}/`;
    const config = join(root, 'verdaccio.yaml');
    // No uplinks: a package the registry does not hold is a 404, never fetched from the public registry.
    writeFileSync(
      config,
      [
        `storage: ${join(root, 'storage')}`,
        'auth:',
        '  htpasswd:',
        `    file: ${join(root, 'htpasswd')}`,
        '    max_users: -1',
        'uplinks: {}',
        'packages:',
        "  '**':",
        '    access: $all',
        '    publish: $all',
        'web:',
        '  enable: false',
        'log: { type: stdout, format: json, level: error }',
        '',
      ].join('\n'),
    );
    verdaccio = spawn(process.execPath, [VERDACCIO, '--config', config, '--listen', `127.0.0.1:${port}`], { env });
    let output = '';
    verdaccio.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    verdaccio.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await eventually(async () => (await fetch(`${registry}-/ping`).catch(() => null))?.ok, 60_000, `Verdaccio answering at ${registry}\n${output}`);
    // npm publishes only with a credential for the registry; Verdaccio takes anyone's (publish: $all).
    writeFileSync(join(root, 'npmrc'), `registry=${registry}\n//127.0.0.1:${port}/:_authToken=anonymous-publisher\n`);
  }

  /** `npm publish` in the package's folder, as its maintainer does: prepack builds it first. */
  async function publish(folder: string): Promise<void> {
    ok(await run('npm', ['publish', '--provenance=false', '--registry', registry], join(REPO, folder)), `npm publish ${folder}`);
  }

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'merchant-registry-'));
    app = join(root, 'merchant-app');
    mkdirSync(app);
    env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(npm_|PAYMENTS_|INIT_CWD)/i.test(name)));
    env.PATH = `${dirname(process.execPath)}:${process.env.PATH}`;
    env.XDG_CONFIG_HOME = join(root, 'config');
    env.NPM_CONFIG_USERCONFIG = join(root, 'npmrc');
    env.NPM_CONFIG_CACHE = join(root, 'npm-cache');
    env.NPM_CONFIG_UPDATE_NOTIFIER = 'false';
    const [service] = await Promise.all([
      startSandboxedService({ simulatorsInService: true, env: { WEBHOOK_POLL_INTERVAL_MS: '200' }, routes: { PIX: 'gateway_b', CARD: 'gateway_a', SUBSCRIPTION: 'gateway_c' } }),
      (async () => {
        await startRegistry();
        await publish('sdk');
        await publish('merchant-cli');
      })(),
    ]);
    sandboxed = service;
    receiver = await startReceiver();
  }, 600_000);

  afterAll(async () => {
    verdaccio?.kill();
    await receiver?.close();
    await sandboxed?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('installs both from the registry alone, then with only an API key: a Pix, paid, received, refunded, and the events caught up', async () => {
    const url = sandboxed.service.url;
    const key = sandboxed.tenant.apiKey;
    writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'merchant-app', private: true, type: 'module' }, null, 2)}\n`);
    const install = await run('npm', ['install', '@service-payments/sdk', '@service-payments/cli', '--no-audit', '--no-fund'], app);
    ok(install, 'npm install from the local registry');
    // Nothing but the two packages (the SDK has no dependencies, the CLI bundles its own), and a quiet install.
    expect(readdirSync(join(app, 'node_modules/@service-payments')).sort()).toEqual(['cli', 'sdk']);
    expect(readdirSync(join(app, 'node_modules')).filter((name) => !name.startsWith('.')).sort()).toEqual(['@service-payments']);
    expect(install.stderr).not.toMatch(/warn|ERR/i);
    expect(ok(await payments('--version'), 'payments --version').trim()).toBe(JSON.parse(readFileSync(join(REPO, 'merchant-cli/package.json'), 'utf8')).version);

    // The key is stored once, in the merchant's config folder, for them alone; every later command reads it from there.
    const login = JSON.parse(ok(await payments('--json', '--url', url, 'login', '--key', key), 'payments login')) as { profile: string; configFile: string };
    expect(login.profile).toBe('default');
    expect(statSync(login.configFile).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(login.configFile, 'utf8'))).toEqual({ profiles: { default: { apiKey: key, baseUrl: url } } });

    // A Pix, created with the installed SDK in a script of the merchant's project.
    writeFileSync(
      join(app, 'create-pix.mjs'),
      `import { PaymentsClient } from '@service-payments/sdk';
const client = new PaymentsClient({ apiKey: process.env.PAYMENTS_API_KEY, baseUrl: process.env.PAYMENTS_URL });
const payment = await client.payments.create({
  amount: 1990,
  method: 'pix',
  externalId: 'order-' + Date.now(),
  customer: { name: 'Maria Silva', email: 'maria@example.com', document: '123.456.789-09' },
});
console.log(JSON.stringify({ id: payment.id, status: payment.status }));
`,
    );
    const created = JSON.parse(ok(await run(process.execPath, ['create-pix.mjs'], app, { PAYMENTS_API_KEY: key, PAYMENTS_URL: url }), 'create-pix.mjs')) as { id: string; status: string };
    expect(created.id).toMatch(/^pay_/);

    // The installed bin itself (what npx runs), so Ctrl-C reaches it rather than npx.
    const listen = spawn(join(app, 'node_modules/.bin/payments'), ['--json', 'listen', '--forward-to', receiver.url('/hooks')], { cwd: app, env });
    let listenOutput = '';
    listen.stdout.on('data', (chunk: Buffer) => (listenOutput += chunk.toString()));
    listen.stderr.on('data', (chunk: Buffer) => (listenOutput += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => listen.once('exit', (code) => resolve(code)));
    try {
      const ready = await eventually(async () => listenOutput.split('\n').map((line) => (line.startsWith('{"ready":true') ? (JSON.parse(line) as { secret: string; environmentId: string }) : undefined)).find(Boolean), 30_000, `listen ready\n${listenOutput}`);
      expect(ready.environmentId).toBe(sandboxed.tenant.environmentId);

      const paid = JSON.parse(ok(await payments('--json', 'sim', 'pay', created.id), 'payments sim pay')) as Record<string, unknown>;
      expect(paid).toBeTruthy();
      const delivery = await eventually(async () => receiver.received.find((d) => (d.json as { type?: string; data?: { paymentId?: string } }).type === 'payment.paid' && (d.json as { data: { paymentId: string } }).data.paymentId === created.id), 30_000, 'payment.paid at the receiver');
      // Signed as a registered endpoint's deliveries are, with the secret listen printed.
      expect(verifyWebhook({ rawBody: delivery.raw, headers: delivery.headers as Record<string, string>, secret: ready.secret }).type).toBe('payment.paid');
    } finally {
      listen.kill('SIGINT');
      const stopped = await Promise.race([exited, new Promise<'still running'>((resolve) => setTimeout(resolve, 15_000, 'still running'))]);
      if (stopped === 'still running') listen.kill('SIGKILL');
      expect(stopped, listenOutput).toBe(0);
    }

    const refund = JSON.parse(ok(await payments('--json', 'refunds', 'create', created.id, '--external-id', `refund-${created.id}`), 'payments refunds create')) as { id: string; paymentId: string; status: string };
    expect(refund).toMatchObject({ paymentId: created.id });
    expect(refund.id).toMatch(/^ref_/);

    // Payment and refund events both name the payment (`data.paymentId`).
    const page = JSON.parse(ok(await payments('--json', 'events', 'list', '--limit', '100'), 'payments events list')) as { data: { type: string; data: { paymentId?: string } }[] };
    const ofPayment = page.data.filter((event) => event.data.paymentId === created.id).map((event) => event.type);
    expect(ofPayment).toEqual(expect.arrayContaining(['payment.created', 'payment.paid', 'refund.created']));
  }, 180_000);

  it('the CLI package passes publint (the SDK\'s publint and attw run in test/sdk/package.test.ts)', async () => {
    // Built by its publish above: the folder holds what the tarball held.
    const lint = await run(process.execPath, [join(REPO, 'node_modules/publint/src/cli.js'), join(REPO, 'merchant-cli'), '--strict', '--pack', 'false'], root);
    expect(lint.code, lint.stdout + lint.stderr).toBe(0);
    expect(lint.stdout).toMatch(/All good!/);
  }, 60_000);

  it('refuses in the contract\'s words: another environment\'s payment is not found, a production key is refused, an unknown id is not found', async () => {
    const created = await fetch(`${sandboxed.service.url}/v1/payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandboxed.tenant.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 500, method: 'pix', externalId: `other-${Date.now()}`, customer: { name: 'Maria Silva', email: 'maria@example.com', document: '123.456.789-09' } }),
    });
    const { id } = (await created.json()) as { id: string };
    const other = await createTenant(sandboxed.service);
    const foreign = await payments('--json', '--api-key', other.apiKey, 'sim', 'pay', id);
    expect(foreign.code).toBe(3);
    expect(JSON.parse(foreign.stderr)).toMatchObject({ error: 'not_found' });

    const live = await createTenant(sandboxed.service, 'production');
    const refused = await payments('--json', '--api-key', live.apiKey, 'sim', 'pay', id);
    expect(refused.code).toBe(4);
    expect(JSON.parse(refused.stderr)).toMatchObject({ error: 'forbidden', message: expect.stringMatching(/sandbox key/) });

    const missing = await payments('--json', 'payments', 'get', 'pay_000000000000000000000000');
    expect(missing.code).toBe(3);
    expect(JSON.parse(missing.stderr)).toMatchObject({ error: 'not_found' });
  }, 120_000);
});
