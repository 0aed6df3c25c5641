/**
 * The README's start command, as a newcomer runs it: a real process on the
 * embedded database with demo data, stopped by a signal and started again.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { cli } from '../support/cli';
import { call, validPayment } from '../support/http';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'payments-start-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Started {
  child: ChildProcessWithoutNullStreams;
  url: string;
  apiKey: string;
  output: () => string;
}

function start(): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start:\n${output}`)), 45_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      const apiKey = /demo sandbox API key: (sk_test_\w+)/.exec(output)?.[1];
      if (url && apiKey) {
        clearTimeout(timer);
        resolve({ child, url, apiKey, output: () => output });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`service exited with ${code}:\n${output}`)));
  });
}

const stop = (child: ChildProcessWithoutNullStreams) =>
  new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });

describe('npm start on the embedded default', () => {
  it('serves health, prints a working demo key, stops cleanly on SIGTERM and keeps its data across restarts', async () => {
    const first = await start();
    const health = await call(first.url, 'GET', '/v1/health');
    expect(health.body).toEqual({ ok: true, service: 'service-payments' });
    const auth = await call(first.url, 'GET', '/v1/auth/test', { key: first.apiKey });
    expect(auth.status).toBe(200);
    expect(auth.body.environment.kind).toBe('sandbox');

    // The demo sandbox gateways: a Pix from pending to paid, driven from the operator CLI.
    const pix = await call(first.url, 'POST', '/v1/payments', { key: first.apiKey, body: validPayment() });
    expect(pix.status).toBe(201);
    expect(pix.body).toMatchObject({ status: 'pending', pix: { qrCodeText: expect.any(String) } });
    const adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const paid = await cli({ url: first.url, adminToken }, ['sim', 'pay', pix.body.id]);
    expect(paid.json.status).toBe('paid');
    expect((await call(first.url, 'GET', `/v1/payments/${pix.body.id}`, { key: first.apiKey })).body.status).toBe('paid');
    expect(await stop(first.child)).toBe(0);

    const second = await start();
    expect(second.apiKey).toBe(first.apiKey);
    const again = await call(second.url, 'GET', '/v1/auth/test', { key: second.apiKey });
    expect(again.body.organization.id).toBe(auth.body.organization.id);
    expect(await stop(second.child)).toBe(0);
  }, 120_000);

  it('refuses to start with a bad variable and names it', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH, PORT: 'not-a-port', DATA_DIR: dataDir },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toContain('PORT');
  }, 60_000);
});
