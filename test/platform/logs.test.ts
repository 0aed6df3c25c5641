/**
 * The logs, for machines and for people: JSON lines when stdout is not a
 * terminal, pino-pretty's coloured lines when it is; the start banner after
 * the migrations; the error code on every 4xx/5xx request line; a gateway
 * failure at warn naming the gateway, the operation and the duration, never
 * with a stack; a FAILED webhook delivery attempt at warn.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseLogFormat } from '../../server/runtime/logger';
import { call, validPayment } from '../support/http';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { startServiceProcess } from '../support/service-process';
import { eventually } from '../support/outbox-events';
import { startReceiver, type Receiver } from '../support/receiver';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** util-linux `script`, to give the service a pseudo-terminal as stdout. */
const hasScript = spawnSync('script', ['--version']).status === 0;

/** Whether a process is still there (signal 0 checks without sending anything). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

interface Line {
  level: number;
  msg: string;
  [field: string]: unknown;
}

const WARN = 40;
const INFO = 30;

describe('log lines of requests, gateways and deliveries', () => {
  let sandboxed: SandboxedService;
  let receiver: Receiver;
  const lines = (): Line[] =>
    sandboxed.service
      .logs()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Line);
  const requestLine = (method: string, path: string, status: number) =>
    eventually(async () => lines().find((line) => (line.req as { method?: string; path?: string } | undefined)?.method === method && (line.req as { path: string }).path === path && (line.res as { statusCode: number } | undefined)?.statusCode === status), 5_000, `${method} ${path} ${status}`);

  beforeAll(async () => {
    sandboxed = await startSandboxedService({ simulatorsInService: true, env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true', WEBHOOK_POLL_INTERVAL_MS: '200' }, routes: { PIX: 'gateway_b', CARD: 'gateway_a' } });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await sandboxed?.stop();
  });

  it('every 4xx line carries its error code, in the fields and in the message, for /v1 and the operator API', async () => {
    const { url, adminToken } = sandboxed.service;
    await call(url, 'GET', '/v1/auth/test');
    await call(url, 'GET', '/v1/payments/pay_nope', { key: sandboxed.tenant.apiKey });
    await call(url, 'POST', '/v1/payments', { key: sandboxed.tenant.apiKey, body: { amount: 0 } });
    await fetch(`${url}/internal/trpc/apiKeys.list?input=${encodeURIComponent(JSON.stringify({ environmentId: 'env_nope' }))}`, { headers: { authorization: `Bearer ${adminToken}` } });
    await fetch(`${url}/internal/trpc/organizations.list`, { headers: { authorization: 'Bearer wrong' } });

    for (const [method, path, status, code] of [
      ['GET', '/v1/auth/test', 401, 'unauthorized'],
      ['GET', '/v1/payments/pay_nope', 400, 'invalid_id'],
      ['POST', '/v1/payments', 400, 'invalid_input'],
      ['GET', '/internal/trpc/apiKeys.list', 404, 'not_found'],
      ['GET', '/internal/trpc/organizations.list', 401, 'unauthorized'],
    ] as const) {
      const line = await requestLine(method, path, status);
      expect(line.error, path).toBe(code);
      // The message names the whole path (the operator API's prefix included), the status and the code.
      expect(line.msg).toMatch(new RegExp(`^${method} ${path.replace(/\./g, '\\.')} ${status} ${code} \\d+ms$`));
      expect(line.level).toBe(INFO);
      expect(line).not.toHaveProperty('err');
    }
    // Success lines have no error field.
    await call(url, 'GET', '/v1/health');
    expect((await requestLine('GET', '/v1/health', 200)).error).toBeUndefined();
  });

  it('a gateway failure (502) is a warning with the gateway, the operation and the duration, and no stack', async () => {
    for (const kind of ['server_error', 'drop_response'] as const) {
      const before = lines().length;
      await sandboxed.service.admin.simulators.fault({ gateway: 'gateway_a', operation: 'createPayment', fault: { kind }, times: 1 });
      const reply = await call(sandboxed.service.url, 'POST', '/v1/payments', { key: sandboxed.tenant.apiKey, body: validPayment({ method: 'card' }) });
      expect(reply.status).toBe(502);
      const line = await eventually(async () => lines().slice(before).find((l) => (l.res as { statusCode?: number } | undefined)?.statusCode === 502), 5_000, 'the 502 line');
      expect(line).toMatchObject({ level: WARN, error: 'gateway_error', gateway: 'gateway_a', operation: 'createPayment', durationMs: expect.any(Number) });
      expect(line.msg).toMatch(/^POST \/v1\/payments 502 gateway_error \d+ms: gateway_a createPayment failed$/);
      expect(line).not.toHaveProperty('err');
      expect(JSON.stringify(line)).not.toMatch(/\bat \S+ \(|stack|node_modules/);
      // Nothing about it logged as an error either.
      expect(lines().slice(before).filter((l) => l.level >= 50)).toEqual([]);
    }
  });

  it('a FAILED delivery attempt is a warning; a delivered one is info', async () => {
    const { environmentId } = sandboxed.tenant;
    receiver.answer((delivery) => ({ status: delivery.headers['x-service-event'] === 'payment.created' ? 200 : 503 }));
    await sandboxed.service.admin.webhooks.createEndpoint({ environmentId, url: receiver.url('/hooks') });
    const pix = await call(sandboxed.service.url, 'POST', '/v1/payments', { key: sandboxed.tenant.apiKey, body: validPayment() });
    expect(pix.status).toBe(201);
    const attempts = await eventually(async () => {
      const found = lines().filter((line) => line.msg === 'webhook delivery attempt');
      return found.some((l) => l.outcome === 'FAILED') && found.some((l) => l.outcome !== 'FAILED') ? found : undefined;
    }, 15_000, 'the delivery attempt lines');
    for (const attempt of attempts) {
      expect(attempt.level, JSON.stringify(attempt)).toBe(attempt.outcome === 'FAILED' ? WARN : INFO);
      expect(attempt).toMatchObject({ deliveryId: expect.stringMatching(/^wd_/), endpointId: expect.stringMatching(/^whe_/), eventId: expect.stringMatching(/^evt_/) });
    }
    expect(attempts.find((a) => a.outcome === 'FAILED')).toMatchObject({ status: 503 });
  });
});

describe('the log format', () => {
  it('pretty on a terminal outside production; JSON through a pipe, in production, or when LOG_FORMAT says so', () => {
    expect(chooseLogFormat(undefined, 'development', true)).toBe('pretty');
    expect(chooseLogFormat(undefined, 'development', false)).toBe('json');
    expect(chooseLogFormat(undefined, 'production', true)).toBe('json');
    expect(chooseLogFormat('json', 'development', true)).toBe('json');
    expect(chooseLogFormat('pretty', 'development', false)).toBe('pretty');
  });

  it('npm start through a pipe: JSON lines only, the listening line after the last migration line', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'payments-logs-'));
    const service = await startServiceProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
    try {
      await call(service.url, 'GET', '/v1/auth/test');
      const output = await eventually(async () => (/"statusCode":401/.test(service.output()) ? service.output() : undefined), 5_000, 'the request line');
      const all = output.split('\n').filter(Boolean);
      // Every line is one JSON object (`npm start | jq .` parses them all).
      for (const line of all) expect(() => JSON.parse(line), line).not.toThrow();
      const listening = all.findIndex((line) => (JSON.parse(line) as { msg?: string }).msg === 'listening');
      const migrations = all.map((line, i) => (line.includes('[migrator]') ? i : -1)).filter((i) => i >= 0);
      expect(migrations.length).toBeGreaterThan(0);
      expect(listening).toBeGreaterThan(Math.max(...migrations));
      expect(JSON.parse(all[listening]!)).toMatchObject({ level: INFO, url: service.url });
      expect(JSON.parse(all.find((line) => line.includes('"statusCode":401'))!)).toMatchObject({ level: INFO, error: 'unauthorized' });
    } finally {
      expect(await service.stop()).toBe(0);
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it.runIf(hasScript)('npm start on a terminal: coloured pretty lines (pino-pretty), the banner after the migrations', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'payments-tty-'));
    const command = `exec timeout 60 env DATA_DIR='${dataDir}' PORT=0 LOG_LEVEL=info '${process.execPath}' --import tsx server/main.ts`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: root, env: { PATH: process.env.PATH ?? '' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', () => undefined);
    try {
      const text = await eventually(async () => (/operator CLI: [^\n]*\n/.test(output) ? output : undefined), 60_000, 'the banner on the terminal');
      const all = text.split(/\r?\n/);
      const migrations = all.map((line, i) => (line.includes('[migrator]') ? i : -1)).filter((i) => i >= 0);
      const banner = all.findIndex((line) => line.includes('service-payments listening on'));
      expect(migrations.length).toBeGreaterThan(0);
      expect(banner).toBeGreaterThan(Math.max(...migrations));
      const first = all[migrations[0]!]!;
      // `[HH:MM:ss.mmm] INFO: [migrator] …` with ANSI colours, not JSON.
      expect(first).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] \x1b\[32mINFO\x1b\[39m: /);
      expect(text).not.toContain('{"level"');
      // A request line shows its id, as the SDK tells people to quote it.
      const url = /listening on (http:\/\/\S+)/.exec(text)![1]!;
      await fetch(`${url}/v1/auth/test`, { headers: { 'x-request-id': 'quote-me-1234' } });
      const logged = await eventually(async () => output.split(/\r?\n/).find((line) => line.includes('GET /v1/auth/test 401')), 5_000, 'the request line');
      expect(logged).toContain('[quote-me-1234]');
    } finally {
      // The service's pid, from the lock it holds on its data folder (it is script's grandchild, not ours).
      const lock = join(dataDir, 'service.lock');
      const pid = existsSync(lock) ? Number.parseInt(readFileSync(lock, 'utf8'), 10) : 0;
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
      // The service itself ends with its terminal (SIGHUP); its data folder goes once it has.
      try {
        if (pid > 0) await eventually(async () => !running(pid), 20_000, `the service (pid ${pid}) to end with its terminal`);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  }, 120_000);
});
