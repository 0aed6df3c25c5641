/**
 * payments-admin as people and scripts use it: its own process, `--json`
 * alone on stdout (also through `npm run -s` and the banner's `npx` form),
 * one error line on stderr with a stable code and an exit status per kind,
 * `--version`, shell completion, a `list` for every resource, tables that
 * fit an 80-column terminal, and every command described with an example.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../cli/errors';
import { renderTable } from '../../cli/output';
import { buildProgram } from '../../cli/program';
import { examplesOf } from '../../cli/tools';
import { call, validPayment } from '../support/http';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { startServiceProcess, unusedPort } from '../support/service-process';
import { eventually } from '../support/outbox-events';
import { startReceiver, type Receiver } from '../support/receiver';

const root = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(root, 'bin/payments-admin.js');
const VERSION = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command line as a shell would (exit status, both streams), with the repository's Node 24 first on PATH. */
function run(file: string, args: string[], env: Record<string, string> = {}, cwd = root): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { cwd, timeout: 60_000, env: { ...process.env, PATH: `${join(root, 'node_modules/.bin')}:${process.env.PATH ?? ''}`, PAYMENTS_URL: '', PAYMENTS_ADMIN_TOKEN: '', ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

let sandboxed: SandboxedService;
let receiver: Receiver;
let other: Server;
let otherUrl: string;

/** The CLI against the test service (human output unless --json is among the arguments). */
const admin = (args: string[], env: Record<string, string> = {}) =>
  run(process.execPath, [BIN, '--url', sandboxed.service.url, '--token', sandboxed.service.adminToken, ...args], env);

beforeAll(async () => {
  sandboxed = await startSandboxedService({ simulatorsInService: true, env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true', WEBHOOK_POLL_INTERVAL_MS: '200' }, routes: { PIX: 'gateway_b', CARD: 'gateway_a' } });
  // A receiver that refuses everything, so deliveries carry long error texts.
  receiver = await startReceiver();
  receiver.answer({ status: 500, body: 'receiver says no: '.repeat(20) });
  // Another program on a port: a plain web server answering HTML.
  other = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Welcome to nginx!</body></html>'));
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  otherUrl = `http://127.0.0.1:${(other.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => other?.close(resolve));
  await receiver?.close();
  await sandboxed?.stop();
});

describe('payments-admin for scripts', () => {
  it('--version prints the version alone', async () => {
    const result = await run(process.execPath, [BIN, '--version']);
    expect(result).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
  });

  it('a list for every resource, each a JSON array alone on stdout', async () => {
    const { environmentId, projectId, organizationId } = sandboxed.tenant;
    for (const args of [
      ['org', 'list'],
      ['project', 'list'],
      ['project', 'list', '--org', organizationId],
      ['env', 'list'],
      ['env', 'list', '--project', projectId],
      ['key', 'list', '--env', environmentId],
      ['gateway', 'list', '--env', environmentId],
      ['route', 'list', '--env', environmentId],
      ['webhook', 'endpoint', 'list', '--env', environmentId],
      ['webhook', 'delivery', 'list', '--env', environmentId],
      ['sim', 'list'],
    ]) {
      const result = await admin(['--json', ...args]);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(Array.isArray(JSON.parse(result.stdout)), args.join(' ')).toBe(true);
      expect(result.stderr).toBe('');
    }
    const envs = JSON.parse((await admin(['--json', 'env', 'list', '--project', projectId])).stdout);
    expect(envs.map((e: { id: string }) => e.id)).toEqual([environmentId]);
  });

  // Twenty CLI runs: side by side, with room for a busy machine (each start of the CLI costs a second or more there).
  it('unknown ids are not_found (exit 3), one line on stderr, nothing on stdout; with --json the error is JSON', { timeout: 120_000 }, async () => {
    const cases = [
      ['key', 'list', '--env', 'env_nope'],
      ['project', 'list', '--org', 'org_nope'],
      ['env', 'list', '--project', 'prj_nope'],
      ['gateway', 'list', '--env', 'env_nope'],
      ['route', 'list', '--env', 'env_nope'],
      ['webhook', 'endpoint', 'list', '--env', 'env_nope'],
      ['webhook', 'delivery', 'show', 'wd_nope'],
      ['key', 'revoke', 'key_nope'],
      ['org', 'usage', 'org_nope'],
      ['sim', 'pay', 'pay_nope'],
    ];
    await Promise.all(cases.map(async (args) => {
      const human = await admin(args);
      expect(human.code, args.join(' ')).toBe(EXIT_CODES.not_found);
      expect(human.stdout).toBe('');
      expect(human.stderr).toMatch(/^error \(not_found\): .*_nope does not exist\.\n$/);

      const json = await admin(['--json', ...args]);
      expect(json.code).toBe(3);
      expect(json.stdout).toBe('');
      expect(JSON.parse(json.stderr)).toEqual({ error: 'not_found', message: expect.stringContaining('_nope') });
    }));
  });

  it('usage errors exit 2: unknown command, missing option, unknown event type, a value an action refuses', async () => {
    const cases: [string[], RegExp][] = [
      [['bogus'], /unknown command 'bogus'/],
      [['org', 'create'], /required option '--name <name>' not specified/],
      [['trigger', 'payment.nope'], /'payment\.nope' is invalid .*payment\.paid/],
      [['gateway', 'enable', 'gateway_x', '--env', sandboxed.tenant.environmentId], /expected one of gateway_a, gateway_b, gateway_c/],
      [['webhook', 'listen', '--forward-to', 'not a url'], /expected a URL/],
    ];
    for (const [args, says] of cases) {
      const human = await admin(args);
      expect(human.code, args.join(' ')).toBe(EXIT_CODES.usage);
      expect(human.stdout).toBe('');
      expect(human.stderr).toMatch(/^error \(usage\): /);
      expect(human.stderr).toMatch(says);
      const json = await admin(['--json', ...args]);
      expect(json.code).toBe(2);
      expect(json.stdout).toBe('');
      expect(JSON.parse(json.stderr)).toMatchObject({ error: 'usage', message: expect.stringMatching(says) });
    }
  });

  it('a wrong or missing token is unauthorized (exit 4), for commands and for listen', async () => {
    for (const args of [['org', 'list'], ['webhook', 'listen', '--forward-to', receiver.url()]]) {
      const wrong = await run(process.execPath, [BIN, '--url', sandboxed.service.url, '--token', 'adm_wrong', ...args]);
      expect(wrong.code, args.join(' ')).toBe(EXIT_CODES.unauthorized);
      expect(wrong.stderr).toMatch(/^error \(unauthorized\): .*admin token.*PAYMENTS_ADMIN_TOKEN/);
      const none = await run(process.execPath, [BIN, '--url', sandboxed.service.url, '--json', ...args], { DATA_DIR: join(tmpdir(), 'no-such-payments-data') });
      expect(none.code).toBe(4);
      expect(JSON.parse(none.stderr)).toMatchObject({ error: 'unauthorized', message: expect.stringContaining('admin-token not found') });
    }
  });

  it('nothing at --url is unreachable (exit 5); another program there is not_this_service (exit 5); for commands and for listen', async () => {
    const closed = await unusedPort();
    for (const args of [['org', 'list'], ['webhook', 'listen', '--forward-to', receiver.url()]]) {
      const down = await run(process.execPath, [BIN, '--url', `http://127.0.0.1:${closed}`, '--token', 'x', ...args]);
      expect(down.code, args.join(' ')).toBe(EXIT_CODES.unreachable);
      expect(down.stderr).toBe(`error (unreachable): cannot reach the service at http://127.0.0.1:${closed} (ECONNREFUSED); is it running? Point --url/PAYMENTS_URL at it.\n`);

      const html = await run(process.execPath, [BIN, '--url', otherUrl, '--token', 'x', '--json', ...args]);
      expect(html.code, args.join(' ')).toBe(EXIT_CODES.not_this_service);
      expect(JSON.parse(html.stderr)).toEqual({ error: 'not_this_service', message: expect.stringContaining(`what answers at ${otherUrl} does not look like this service`) });
      expect(html.stdout).toBe('');
    }
    expect(new Set([EXIT_CODES.usage, EXIT_CODES.not_found, EXIT_CODES.unauthorized, EXIT_CODES.unreachable]).size).toBe(4);
  }, 60_000);

  it('`npm run -s admin -- --json org list` prints the JSON alone on stdout', async () => {
    const result = await run('npm', ['run', '-s', 'admin', '--', '--url', sandboxed.service.url, '--token', sandboxed.service.adminToken, '--json', 'org', 'list']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).map((o: { id: string }) => o.id)).toContain(sandboxed.tenant.organizationId);
  }, 60_000);
});

describe('payments-admin for people', () => {
  it('tables fit an 80-column terminal; webhook delivery list too, with long errors and URLs', async () => {
    const { environmentId } = sandboxed.tenant;
    await admin(['webhook', 'endpoint', 'create', receiver.url('/a/rather/long/path/to/the/webhook/handler/of/this/shop'), '--env', environmentId, '--description', 'the endpoint with the longest description anyone has ever written']);
    for (let i = 0; i < 3; i++) expect((await call(sandboxed.service.url, 'POST', '/v1/payments', { key: sandboxed.tenant.apiKey, body: validPayment() })).status).toBe(201);
    await eventually(async () => receiver.received.length >= 6 || undefined, 15_000, 'the failed deliveries');
    const raw = JSON.parse((await admin(['--json', 'webhook', 'delivery', 'list', '--env', environmentId])).stdout);
    // Unabridged, a delivery row is far wider than a terminal.
    expect(JSON.stringify(raw[0]).length).toBeGreaterThan(200);

    for (const args of [
      ['org', 'list'],
      ['project', 'list'],
      ['env', 'list'],
      ['key', 'list', '--env', environmentId],
      ['gateway', 'list', '--env', environmentId],
      ['route', 'list', '--env', environmentId],
      ['webhook', 'endpoint', 'list', '--env', environmentId],
      ['webhook', 'delivery', 'list', '--env', environmentId],
    ]) {
      const result = await admin(args, { COLUMNS: '80' });
      expect(result.code, result.stderr).toBe(0);
      const lines = result.stdout.trimEnd().split('\n');
      for (const line of lines) expect(line.length, `${args.join(' ')}:\n${result.stdout}`).toBeLessThanOrEqual(80);
      // A header, then the rows: ids first, whole (a routing rule is known by its method within the environment).
      expect(lines[0]).toMatch(/^(id|environmentId|method) /);
    }
    const deliveries = (await admin(['webhook', 'delivery', 'list', '--env', environmentId], { COLUMNS: '80' })).stdout;
    expect(deliveries).toMatch(/^id +status +event /);
    expect(deliveries).toContain(raw[0].id);
    expect(deliveries).toMatch(/FAILED|RETRYING|PENDING/);
  }, 60_000);

  it('shows an inline QR image as its kind and size, not thousands of characters; --json keeps it whole', async () => {
    const pix = (await call(sandboxed.service.url, 'POST', '/v1/payments', { key: sandboxed.tenant.apiKey, body: validPayment({ method: 'pix' }) })).body;
    const paid = await admin(['sim', 'pay', pix.id]);
    expect(paid.code, paid.stderr).toBe(0);
    expect(paid.stdout).toMatch(/status: +paid/);
    expect(paid.stdout).toMatch(/\(image\/png, [\d,]+ characters; --json shows it\)/);
    for (const line of paid.stdout.split('\n')) expect(line.length, line.slice(0, 200)).toBeLessThan(400);
    const another = (await call(sandboxed.service.url, 'POST', '/v1/payments', { key: sandboxed.tenant.apiKey, body: validPayment({ method: 'pix' }) })).body;
    const whole = JSON.parse((await admin(['--json', 'sim', 'pay', another.id])).stdout);
    expect(whole.pix.qrCode).toMatch(/^data:image\/png;base64,/);
  }, 60_000);

  it('renderTable keeps to any width: shortens free text and URLs, then leaves columns out and says so', () => {
    const rows = Array.from({ length: 3 }, (_, i) => ({
      id: `wd_${'x'.repeat(23)}${i}`,
      status: 'FAILED',
      eventType: 'subscription.payment_failed',
      lastResponseStatus: 500,
      attempts: 8,
      lastAttemptAt: '2026-11-22T14:03:07.123Z',
      lastError: 'HTTP 500: receiver says no '.repeat(10),
      endpointId: `whe_${'y'.repeat(24)}`,
    }));
    for (const width of [60, 80, 100, 120, 200, 400]) {
      const text = renderTable(rows, undefined, width);
      for (const line of text.trimEnd().split('\n')) expect(line.length, `${width}:\n${text}`).toBeLessThanOrEqual(width);
      expect(text).toContain(rows[0]!.id);
    }
    expect(renderTable(rows, undefined, 80)).toMatch(/\(not shown: .*; see --json\)/);
    expect(renderTable(rows, undefined, 400)).not.toContain('not shown');
    expect(renderTable(rows, undefined, 400)).toContain('2026-11-22 14:03:07');
  });

  it('every command has a description and at least one example in its --help', async () => {
    const program = buildProgram({}, ['node', 'payments-admin']);
    const leaves: Command[] = [];
    const walk = (command: Command) => {
      for (const sub of command.commands) {
        expect(sub.description(), sub.name()).not.toBe('');
        if (sub.commands.length === 0) leaves.push(sub);
        else walk(sub);
      }
    };
    walk(program);
    expect(leaves.length).toBeGreaterThan(30);
    const path = (command: Command): string => (command.parent?.parent ? `${path(command.parent)} ${command.name()}` : command.name());
    for (const leaf of leaves) expect(examplesOf(leaf).length, path(leaf)).toBeGreaterThan(0);

    for (const args of [['webhook', 'listen', '--help'], ['trigger', '--help'], ['webhook', 'delivery', 'list', '--help']]) {
      const help = await run(process.execPath, [BIN, ...args]);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/\nExamples:\n {2}\$ payments-admin /);
    }
    // The exit statuses are in the top-level help.
    expect((await run(process.execPath, [BIN, '--help'])).stdout).toMatch(/Exit status[^]*3 {2}not_found[^]*4 {2}unauthorized[^]*5 {2}unreachable/);
  });

  it('shell completion: bash completes commands and options from the program itself; zsh loads the same', async () => {
    const script = await run(process.execPath, [BIN, 'completion', 'bash']);
    expect(script.code).toBe(0);
    expect(script.stdout).toContain('complete -o default -F _payments_admin payments-admin npx');
    const complete = async (words: string[], command = ['payments-admin']) => {
      const file = join(mkdtempSync(join(tmpdir(), 'payments-completion-')), 'completion.bash');
      writeFileSync(file, script.stdout);
      const words_ = [...command, ...words].map((w) => `'${w}'`).join(' ');
      const result = await run('bash', ['-c', `source '${file}'; COMP_WORDS=(${words_}); COMP_CWORD=${command.length + words.length - 1}; _payments_admin; echo "\${COMPREPLY[*]}"`]);
      rmSync(join(file, '..'), { recursive: true, force: true });
      return result.stdout.trim().split(/\s+/);
    };
    expect(await complete(['web'])).toEqual(['webhook']);
    expect(await complete(['webhook', ''])).toEqual(expect.arrayContaining(['endpoint', 'delivery', 'listen']));
    expect(await complete(['webhook', 'delivery', 'l'])).toEqual(['list']);
    expect(await complete(['webhook', 'listen', '--f'])).toEqual(['--forward-to']);
    expect(await complete(['trigger', '--'])).toEqual(expect.arrayContaining(['--env', '--help']));
    // The README's form, through npx; other npx commands get the shell's default.
    expect(await complete(['payments-admin', 'webhook', 'delivery', 'l'], ['npx'])).toEqual(['list']);
    expect(await complete(['vite', 'bu'], ['npx'])).toEqual(['']);

    const zsh = await run(process.execPath, [BIN, 'completion', 'zsh']);
    expect(zsh.stdout).toContain('bashcompinit');
    expect(zsh.stdout).toContain('complete -o default -F _payments_admin payments-admin npx');
    expect((await run(process.execPath, [BIN, 'completion', 'fish'])).code).toBe(2);
  });
});

describe('the start banner', () => {
  it('prints the CLI invocation that reaches this service, for its port and data folder; it works as printed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'payments-banner-'));
    // The banner of a terminal, as a person reads it.
    const service = await startServiceProcess({ DATA_DIR: dataDir, LOG_FORMAT: 'pretty' });
    try {
      const printed = /operator CLI: (.+) --help/.exec(service.output())?.[1];
      expect(printed).toBeDefined();
      expect(printed).toContain(`DATA_DIR=${dataDir}`);
      expect(printed).toContain(`--url ${service.url}`);
      // As a person would paste it in the repository, with --json and a command after it.
      // PAYMENTS_ADMIN_TOKEN and PAYMENTS_URL are set but empty here (run() does that): empty counts as unset.
      const result = await run('sh', ['-c', `${printed} --json org list`]);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual([expect.objectContaining({ name: 'Demo organization' })]);
    } finally {
      expect(await service.stop()).toBe(0);
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
