/**
 * The SDK as a merchant gets it: `npm pack` in sdk/, the tarball installed
 * into a fresh folder outside the repository, and used from plain ESM and
 * CommonJS, from TypeScript (strict; node16 ESM and CJS, and bundler
 * resolution, with no @types/node), and from copies of the examples. Each
 * creates a payment on a real service and verifies a real delivery of it.
 * The TypeScript compiler and tsx come from the repository's node_modules,
 * so the folder installs nothing but the tarball.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTestWebhook, PaymentsClient } from '@service-payments/sdk';
import type { TestService } from '../support/service';
import type { TestTenant } from '../support/tenant';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, '../..');
const sdkDir = join(repo, 'sdk');
const tsc = join(repo, 'node_modules/typescript/bin/tsc');
const tsxLoader = pathToFileURL(join(repo, 'node_modules/tsx/dist/loader.mjs')).href;
const { version } = JSON.parse(readFileSync(join(sdkDir, 'package.json'), 'utf8')) as { version: string };

let work: string;
let tarball: string;
let world: SandboxedService;
let service: TestService;
let tenant: TestTenant;
let hookServer: Server;
let endpointSecret: string;
/** A real delivery of the service, as received: raw body and headers. */
let delivery: { rawBody: string; headers: Record<string, string> };
const children: ChildProcess[] = [];

/** Runs a command to completion; its output on failure. */
async function exec(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  try {
    const { stdout } = await run(file, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${file} ${args.join(' ')} failed in ${cwd}:\n${stdout ?? ''}\n${stderr ?? ''}`);
  }
}

/** The last stdout line of a consumer, parsed. */
async function runConsumer(file: string, node = process.execPath): Promise<Record<string, unknown>> {
  const stdout = await exec(node, [file], work);
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

/** Starts a long-running process and resolves with the URL it prints once listening. */
function startProcess(args: string[], cwd: string, env: Record<string, string>, pattern: RegExp): Promise<string> {
  const child = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolvePromise, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`no start line from ${args.join(' ')}:\n${output}`)), 20_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = pattern.exec(output);
      if (match) {
        clearTimeout(timer);
        resolvePromise(match[1]!);
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}:\n${output}`)));
  });
}

/** What every consumer does, written once as code valid in JavaScript and TypeScript. */
function consumerBody(variant: string): string {
  const config = {
    variant,
    apiKey: tenant.apiKey,
    baseUrl: service.url,
    externalId: `pkg-${variant}-${Date.now()}`,
    secrets: ['whsec_retired0000000000000000000000000000', endpointSecret],
    delivery,
  };
  return `
const config = ${JSON.stringify(config, null, 2)};

async function main() {
  const client = new PaymentsClient({ apiKey: config.apiKey, baseUrl: config.baseUrl });
  const body = {
    amount: 1990,
    method: 'pix' as const,
    externalId: config.externalId,
    customer: { name: 'Maria Silva', email: 'maria@example.com', document: '123.456.789-09' },
  };
  const payment = await client.payments.create(body);
  const again = await client.payments.create(body, { requestId: 'pkg-' + config.variant });
  const replayed: boolean = again.lastResponse.idempotentReplayed;

  // A real delivery, verified against a rotation's list of secrets, with node:crypto and with WebCrypto.
  const event = verifyWebhook({ rawBody: config.delivery.rawBody, headers: config.delivery.headers, secret: config.secrets });
  const edgeEvent = await edge.verifyWebhookAsync({ rawBody: config.delivery.rawBody, headers: config.delivery.headers, secret: config.secrets });

  // A signed test delivery with an old timestamp: stale, and its verified event is on the error (same class from both entries).
  const sample = generateTestWebhook({
    secret: 'whsec_unit',
    timestamp: 1_700_000_000,
    event: {
      type: 'payment.paid',
      data: { paymentId: payment.id, externalId: payment.externalId, status: 'paid', method: 'pix', provider: payment.gateway, amount: payment.amount, currency: 'BRL', gatewayRef: payment.gatewayRef },
    },
  });
  let staleEvent = 'none';
  try {
    verifyWebhook({ rawBody: sample.rawBody, headers: sample.headers, secret: 'whsec_unit' });
  } catch (error) {
    if (error instanceof edge.WebhookTimestampError) staleEvent = error.event.id;
  }

  console.log(JSON.stringify({
    variant: config.variant,
    version: SDK_VERSION,
    paymentId: payment.id,
    status: payment.status,
    firstReplayed: payment.lastResponse.idempotentReplayed,
    replayed,
    againId: again.id,
    requestId: again.lastResponse.requestId,
    event: event.id,
    edgeEvent: edgeEvent.id,
    staleEvent,
    sampleId: sample.event.id,
  }));
}
`;
}

/** The TypeScript-only part: the types are the contract's, not \`any\`. */
const typeChecks = `
export function typeChecks(client: PaymentsClient): void {
  // @ts-expect-error amount is an integer of cents, not a string
  void client.payments.create({ amount: '10', method: 'pix', externalId: 'x', customer: { name: 'a', email: 'a@example.com', document: '1' } });
  // @ts-expect-error lastResponse is read-only metadata
  void client.health().then((health) => { health.lastResponse = undefined; });
}
`;

const stripTypes = (code: string) => code.replace(" as const", '').replace('const replayed: boolean =', 'const replayed =');

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'merchant-app-'));
  // `prepack` builds first, exactly as for a publish.
  await exec('npm', ['pack', '--pack-destination', work], sdkDir);
  tarball = join(work, `service-payments-sdk-${version}.tgz`);
  writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'merchant-app', private: true }));
  await exec('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', '--loglevel=error', tarball], work);

  world = await startSandboxedService({ env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true' }, routes: { PIX: 'gateway_a' } });
  ({ service, tenant } = world);

  // A receiver that keeps the first delivery exactly as it arrived.
  const received: { rawBody: string; headers: IncomingHttpHeaders }[] = [];
  hookServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ rawBody: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((done) => hookServer.listen(0, '127.0.0.1', done));
  const hookUrl = `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}/hooks`;
  endpointSecret = (await service.admin.webhooks.createEndpoint({ environmentId: tenant.environmentId, url: hookUrl })).secret;
  await new PaymentsClient({ apiKey: tenant.apiKey, baseUrl: service.url }).payments.create({
    amount: 500,
    method: 'pix',
    externalId: `pkg-hook-${Date.now()}`,
    customer: { name: 'Maria Silva', email: 'maria@example.com', document: '123.456.789-09' },
  });
  const deadline = Date.now() + 15_000;
  while (received.length === 0 && Date.now() < deadline) await new Promise((done) => setTimeout(done, 25));
  const first = received[0];
  if (!first) throw new Error('no delivery arrived');
  const pick = (name: string) => String(first.headers[name]);
  delivery = {
    rawBody: first.rawBody,
    headers: { 'x-service-timestamp': pick('x-service-timestamp'), 'x-service-signature': pick('x-service-signature'), 'x-service-event': pick('x-service-event') },
  };
}, 120_000);

afterAll(async () => {
  for (const child of children) child.kill();
  await new Promise<void>((done) => (hookServer ? hookServer.close(() => done()) : done()));
  await world?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

const deliveredEvent = () => (JSON.parse(delivery.rawBody) as { id: string }).id;

/** What each consumer must have printed. */
function expectWorked(result: Record<string, unknown>, variant: string) {
  expect(result).toMatchObject({
    variant,
    version,
    paymentId: expect.stringMatching(/^pay_/),
    status: 'pending',
    firstReplayed: false,
    replayed: true,
    requestId: `pkg-${variant}`,
    event: deliveredEvent(),
    edgeEvent: deliveredEvent(),
    staleEvent: result.sampleId,
  });
  expect(result.againId).toBe(result.paymentId);
}

describe('the packed SDK', () => {
  it('holds the builds, their declarations, the README and the MIT licence, and nothing of the repository', async () => {
    const listing = await exec('tar', ['-tzf', tarball], work);
    const files = listing.trim().split('\n').map((line) => line.replace(/^package\//, '')).sort();
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json', 'dist/index.js', 'dist/index.cjs', 'dist/index.d.ts', 'dist/index.d.cts', 'dist/webcrypto.js', 'dist/webcrypto.cjs', 'dist/webcrypto.d.ts', 'dist/webcrypto.d.cts', 'webcrypto/package.json']));
    expect(files.filter((file) => /^(src|scripts|test)\/|\.map$|tsconfig|tsup/.test(file))).toEqual([]);
    const installed = join(work, 'node_modules/@service-payments/sdk');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: '@service-payments/sdk', license: 'MIT', engines: { node: '>=20.3' }, repository: { directory: 'sdk' } });
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
  });

  it('its declarations need nothing from Node (no Buffer, NodeJS or node: types), and the WebCrypto entry loads nothing from node:', () => {
    const dist = join(work, 'node_modules/@service-payments/sdk/dist');
    for (const file of readdirSync(dist).filter((name) => /\.d\.c?ts$/.test(name))) {
      const code = readFileSync(join(dist, file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
      expect(code, file).not.toMatch(/\bBuffer\b|\bNodeJS\b|['"]node:|reference types=/);
    }
    for (const entry of ['webcrypto.js', 'webcrypto.cjs']) {
      const seen = new Set<string>();
      const visit = (file: string) => {
        if (seen.has(file)) return;
        seen.add(file);
        const code = readFileSync(join(dist, file), 'utf8');
        expect(code, file).not.toMatch(/['"]node:|require\(['"](crypto|util)['"]\)/);
        for (const [, local] of code.matchAll(/(?:from |require\()['"]\.\/([^'"]+)['"]/g)) visit(local!);
      };
      visit(entry);
      expect(seen.size).toBeGreaterThan(1);
    }
  });

  it('passes publint and arethetypeswrong (node10, node16 CJS and ESM, bundler)', async () => {
    const unpacked = join(work, 'unpacked');
    mkdirSync(unpacked);
    await exec('tar', ['-xzf', tarball, '-C', unpacked], work);
    const lint = await exec(process.execPath, [join(repo, 'node_modules/publint/src/cli.js'), join(unpacked, 'package'), '--strict', '--pack', 'false'], work);
    expect(lint).toMatch(/All good/);
    const report = JSON.parse(await exec(process.execPath, [join(repo, 'node_modules/@arethetypeswrong/cli/dist/index.js'), tarball, '--format', 'json'], work)) as {
      analysis: { problems: unknown[]; entrypoints: Record<string, { resolutions: Record<string, { resolution?: { fileName: string } }> }> };
    };
    expect(report.analysis.problems).toEqual([]);
    for (const [entrypoint, { resolutions }] of Object.entries(report.analysis.entrypoints)) {
      for (const mode of ['node10', 'node16-cjs', 'node16-esm', 'bundler']) expect(resolutions[mode]?.resolution, `${entrypoint} under ${mode}`).toBeDefined();
    }
  }, 60_000);

  it('plain ESM (.mjs) and plain CommonJS (.cjs): a payment, a replay, a real delivery verified', async () => {
    writeFileSync(
      join(work, 'consumer.mjs'),
      `import { PaymentsClient, verifyWebhook, generateTestWebhook, SDK_VERSION } from '@service-payments/sdk';\nimport * as edge from '@service-payments/sdk/webcrypto';\n${stripTypes(consumerBody('mjs'))}\nawait main();\n`,
    );
    writeFileSync(
      join(work, 'consumer.cjs'),
      `const { PaymentsClient, verifyWebhook, generateTestWebhook, SDK_VERSION } = require('@service-payments/sdk');\nconst edge = require('@service-payments/sdk/webcrypto');\n${stripTypes(consumerBody('cjs'))}\nmain().catch((error) => { console.error(error); process.exit(1); });\n`,
    );
    expectWorked(await runConsumer('consumer.mjs'), 'mjs');
    expectWorked(await runConsumer('consumer.cjs'), 'cjs');
  });

  it('runs on the oldest Node its engines allow (the system Node 20, when there is one)', async (context) => {
    const system = await exec('/usr/bin/env', ['-i', 'PATH=/usr/local/bin:/usr/bin:/bin', 'node', '-p', 'process.versions.node'], work).catch(() => '');
    const [major, minor] = system.trim().split('.').map(Number);
    if (!major || major !== 20 || minor! < 3) return context.skip();
    writeFileSync(join(work, 'node20.mjs'), readFileSync(join(work, 'consumer.mjs'), 'utf8').replace(`"variant": "mjs"`, `"variant": "node20"`).replace(/pkg-mjs-\d+/, `pkg-node20-${Date.now()}`));
    const stdout = await exec('/usr/bin/env', ['-i', 'PATH=/usr/local/bin:/usr/bin:/bin', 'node', 'node20.mjs'], work);
    expectWorked(JSON.parse(stdout.trim().split('\n').at(-1)!), 'node20');
  });

  it('TypeScript strict, module node16: an ESM (.mts) and a CommonJS (.cts) file, with no @types/node', async () => {
    const dir = join(work, 'ts-node16');
    mkdirSync(dir);
    const imports = `import { PaymentsClient, verifyWebhook, generateTestWebhook, SDK_VERSION } from '@service-payments/sdk';\nimport * as edge from '@service-payments/sdk/webcrypto';\n`;
    writeFileSync(join(dir, 'esm.mts'), `${imports}${consumerBody('node16-esm')}${typeChecks}\nawait main();\n`);
    writeFileSync(join(dir, 'cjs.cts'), `${imports}${consumerBody('node16-cjs')}${typeChecks}\nvoid main();\n`);
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, module: 'node16', moduleResolution: 'node16', target: 'ES2022', lib: ['ES2022', 'DOM'], types: [], skipLibCheck: false, rootDir: '.', outDir: 'out' },
        include: ['*.mts', '*.cts'],
      }),
    );
    await exec(process.execPath, [tsc, '-p', dir], work);
    expect(readFileSync(join(dir, 'out/cjs.cjs'), 'utf8')).toMatch(/require\("@service-payments\/sdk"\)/);
    expectWorked(await runConsumer(join(dir, 'out/esm.mjs')), 'node16-esm');
    expectWorked(await runConsumer(join(dir, 'out/cjs.cjs')), 'node16-cjs');
  });

  it('TypeScript strict, moduleResolution bundler, with no @types/node', async () => {
    const dir = join(work, 'ts-bundler');
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(
      join(dir, 'main.ts'),
      `import { PaymentsClient, verifyWebhook, generateTestWebhook, SDK_VERSION } from '@service-payments/sdk';\nimport * as edge from '@service-payments/sdk/webcrypto';\n${consumerBody('bundler')}${typeChecks}\nawait main();\n`,
    );
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, module: 'esnext', moduleResolution: 'bundler', target: 'ES2022', lib: ['ES2022', 'DOM'], types: [], skipLibCheck: false, outDir: 'out' },
        include: ['main.ts'],
      }),
    );
    await exec(process.execPath, [tsc, '-p', dir], work);
    expectWorked(await runConsumer(join(dir, 'out/main.js')), 'bundler');
  });

  it('the examples, copied out of the repository, type-check and run on the installed package', async () => {
    for (const example of ['checkout', 'webhook-receiver']) {
      const copy = join(work, 'examples', example);
      cpSync(join(repo, 'examples', example), copy, { recursive: true });
      const manifest = JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8'));
      expect(manifest.dependencies).toEqual({ '@service-payments/sdk': `^${version}` });
      await exec(process.execPath, [tsc, '-p', copy, '--typeRoots', join(repo, 'node_modules/@types')], work);
    }

    // The receiver with a rotation's two secrets: a delivery signed by the new one alone is taken.
    const receiverUrl = await startProcess(
      ['--import', tsxLoader, 'main.ts'],
      join(work, 'examples/webhook-receiver'),
      { WEBHOOK_SECRETS: 'whsec_old0000000000000000000000000000000,whsec_new0000000000000000000000000000000', PORT: '0' },
      /listening on (http:\/\/\S+)/,
    );
    const test = generateTestWebhook({
      secret: 'whsec_new0000000000000000000000000000000',
      event: { type: 'payment.paid', data: { paymentId: 'pay_copy', externalId: 'order-copy', status: 'paid', method: 'pix', provider: 'gateway_a', amount: 100, currency: 'BRL', gatewayRef: null } },
    });
    const accepted = await fetch(receiverUrl, { method: 'POST', headers: test.headers, body: test.rawBody });
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ received: true });

    // The checkout pays an order through the installed SDK.
    const checkoutUrl = await startProcess(
      ['--import', tsxLoader, 'main.ts'],
      join(work, 'examples/checkout'),
      { PAYMENTS_API_KEY: tenant.apiKey, PAYMENTS_BASE_URL: service.url, PORT: '0' },
      /listening on (http:\/\/\S+)/,
    );
    const form = await (await fetch(checkoutUrl)).text();
    const orderId = /name="orderId" value="(ord_[0-9a-f]+)"/.exec(form)![1]!;
    const page = await fetch(`${checkoutUrl}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ orderId, sku: 'mug', method: 'pix', name: 'Maria Silva', email: 'maria@example.com', document: '123.456.789-09' }),
    });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('pix-code');
  }, 60_000);
});
