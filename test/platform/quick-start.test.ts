/**
 * The README's start command, as a newcomer runs it: a real process on the
 * embedded database with demo data, stopped by a signal and started again.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../support/cli';
import { call, validPayment } from '../support/http';
import { listeningLine, spawnService, startServiceProcess } from '../support/service-process';

const isJson = (line: string) => {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
};

const dataDir = mkdtempSync(join(tmpdir(), 'payments-start-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** As in a newcomer's terminal: the banner for a person. */
const start = () => startServiceProcess({ DATA_DIR: dataDir, LOG_FORMAT: 'pretty' });

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

    // The banner's dashboard line: its address, and a demo log-in that works and sees the demo organization.
    const [, dashboardUrl, email, password] = /dashboard: +(\S+) +log in as (\S+) \/ (\S+)/.exec(first.output()) ?? [];
    expect(dashboardUrl).toBe(`${first.url}/dashboard/`);
    const login = await fetch(`${first.url}/internal/trpc/auth.login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
    expect(login.status).toBe(200);
    const session = (await login.json()) as { result: { data: { csrfToken: string; memberships: { organizationId: string; role: string }[] } } };
    expect(session.result.data.memberships).toEqual([expect.objectContaining({ organizationId: auth.body.organization.id, role: 'owner' })]);
    expect(await first.stop()).toBe(0);

    // Started again: the same demo log-in works and is printed again.
    const second = await start();
    expect(second.apiKey).toBe(first.apiKey);
    expect(second.output()).toContain(`log in as ${email} / ${password}`);

    // Once the demo user chooses their own password, the generated one is neither printed nor kept.
    const csrf = session.result.data.csrfToken;
    const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
    const changed = await fetch(`${second.url}/internal/trpc/auth.changePassword`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, 'x-csrf-token': csrf, origin: second.url },
      body: JSON.stringify({ currentPassword: password, newPassword: 'my own demo passphrase' }),
    });
    expect(changed.status).toBe(200);
    expect(await second.stop()).toBe(0);
    const third = await start();
    expect(third.output()).toContain(`log in as ${email} with the password you chose`);
    expect(third.output()).not.toContain(password!);
    expect(existsSync(join(dataDir, 'demo-dashboard-password'))).toBe(false);
    expect(await third.stop()).toBe(0);

    const fourth = await start();
    expect(fourth.apiKey).toBe(first.apiKey);
    const again = await call(fourth.url, 'GET', '/v1/auth/test', { key: fourth.apiKey });
    expect(again.body.organization.id).toBe(auth.body.organization.id);
    expect(await fourth.stop()).toBe(0);
    // Four cold starts of a real process (migrations, demo seed): well over a minute on a busy 2-core host.
  }, 240_000);

  it('with JSON logs (a pipe, a container), writes only JSON lines, says where it listens in one of them, and prints no secret', async () => {
    const jsonDir = mkdtempSync(join(tmpdir(), 'payments-start-json-'));
    try {
      const started = await startServiceProcess({ DATA_DIR: jsonDir });
      const lines = started.output().split('\n').filter((line) => line.trim() !== '');
      expect(lines.filter((line) => !isJson(line))).toEqual([]);
      const listening = listeningLine(started.output())!;
      expect(listening).toMatchObject({ url: started.url, dashboard: `${started.url}/dashboard/` });
      expect(listening.files.demoApiKey).toBe(join(jsonDir, 'demo-api-key'));
      const password = readFileSync(listening.files.demoDashboardPassword!, 'utf8').trim();
      expect(started.output()).not.toContain(started.apiKey);
      expect(started.output()).not.toContain(password);
      expect((await call(started.url, 'GET', '/v1/auth/test', { key: started.apiKey })).status).toBe(200);
      expect(await started.stop()).toBe(0);
    } finally {
      rmSync(jsonDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('refuses to start with a bad variable and names it', async () => {
    const child = spawnService({ PORT: 'not-a-port', DATA_DIR: dataDir });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toContain('PORT');
  }, 60_000);
});
