/**
 * A merchant's dev loop without an operator: `payments-admin webhook listen`
 * and `trigger` with nothing but a sandbox API key (no admin token anywhere),
 * the real CLI as its own process against a real service. The key reaches
 * its own environment only; production and revoked keys are refused; the
 * listen signing secret is kept for the key on this machine (the user's
 * config folder), so a second session signs like the first, until
 * `--new-secret`.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../sdk/src';
import { LISTEN_PATH } from '../../server/contract/listen-protocol';
import { eventually } from '../support/outbox-events';
import { startReceiver, type ReceivedDelivery, type Receiver } from '../support/receiver';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { createTenant } from '../support/tenant';
import { startListener as startListenerProcess, type Listener } from '../support/listener';

const BIN = fileURLToPath(new URL('../../bin/payments-admin.js', import.meta.url));

/** A developer's machine: their own config folder, and no admin token in reach (no variable, no data folder). */
function machine(): { env: NodeJS.ProcessEnv; configHome: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), 'payments-dev-machine-'));
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: join(root, 'config'), HOME: join(root, 'home'), DATA_DIR: join(root, 'no-service-data') };
  delete env.PAYMENTS_ADMIN_TOKEN;
  delete env.PAYMENTS_API_KEY;
  return { env, configHome: join(root, 'config'), remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** `payments-admin --url … webhook listen …` (no --token) on the developer's machine. */
const startListener = (url: string, args: string[], env: NodeJS.ProcessEnv): Promise<Listener> => startListenerProcess(url, args, { env });

const refusalOf = (started: Promise<Listener>) =>
  started.then(
    async (listener) => {
      await listener.interrupt();
      return null;
    },
    (error: { code: number; errors: string }) => error,
  );

/** `payments-admin --url … [args]` (no --token), as its own process. */
function run(url: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, '--url', url, ...args], { env, timeout: 30_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const verified = (delivery: ReceivedDelivery, secret: string) => verifyWebhook({ rawBody: delivery.raw, headers: delivery.headers as Record<string, string>, secret });

describe('webhook listen and trigger with a sandbox API key', () => {
  let sandboxed: SandboxedService;
  let receiver: Receiver;
  let dev: ReturnType<typeof machine>;
  let url: string;

  beforeAll(async () => {
    sandboxed = await startSandboxedService({
      simulatorsInService: true,
      env: { WEBHOOK_POLL_INTERVAL_MS: '200' },
      routes: { PIX: 'gateway_b', CARD: 'gateway_a', SUBSCRIPTION: 'gateway_c' },
    });
    url = sandboxed.service.url;
    receiver = await startReceiver();
    dev = machine();
  });
  afterAll(async () => {
    await receiver?.close();
    await sandboxed?.stop();
    dev?.remove();
  });

  /** Triggers payment.paid with the key and waits for its three events at the receiver, each verified with `secret`. */
  async function triggerAndReceive(args: string[], env: NodeJS.ProcessEnv, secret: string) {
    const before = receiver.received.length;
    const triggered = await run(url, ['--json', 'trigger', 'payment.paid', ...args], env);
    expect(triggered.code, triggered.stderr).toBe(0);
    const result = JSON.parse(triggered.stdout) as { environmentId: string; events: { id: string; type: string }[] };
    expect(result.environmentId).toBe(sandboxed.tenant.environmentId);
    expect(result.events.map((e) => e.type)).toEqual(['payment.created', 'payment.pending', 'payment.paid']);
    const deliveries = (await receiver.waitFor(before + 3)).slice(before);
    expect(deliveries.map((d) => d.json.id)).toEqual(result.events.map((e) => e.id));
    // The SDK's verifier, exactly as a registered endpoint's receiver verifies.
    for (const delivery of deliveries) expect(verified(delivery, secret).id).toBe(delivery.json.id);
    return deliveries;
  }

  it('with only an sk_test_ key: listen, then trigger payment.paid, reaches the local receiver; the next session signs with the same secret', async () => {
    const key = sandboxed.tenant.apiKey;
    const withKeyVariable = { ...dev.env, PAYMENTS_API_KEY: key };

    const first = await startListener(url, ['--forward-to', receiver.url('/hooks')], withKeyVariable);
    let second: Listener | undefined;
    try {
      expect(first.output()).toMatch(new RegExp(`^Ready! Forwarding events of ${sandboxed.tenant.environmentId} to ${receiver.url('/hooks')}`, 'm'));
      expect(first.output()).toMatch(/^Webhook signing secret of this API key \(new\): whsec_\w+\n\(kept in .*listen-secrets\/[0-9a-f]{32}\.json for the next sessions; --new-secret makes another\)$/m);
      await triggerAndReceive(['--api-key', key], dev.env, first.secret);
      expect(await first.interrupt()).toBe(0);

      // The secret is kept in the user's config folder, for the owner alone, without the key.
      const dir = join(dev.configHome, 'payments-admin', 'listen-secrets');
      const [file, ...others] = readdirSync(dir);
      expect(others).toEqual([]);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, file!)).mode & 0o777).toBe(0o600);
      const kept = readFileSync(join(dir, file!), 'utf8');
      expect(JSON.parse(kept)).toMatchObject({ secret: first.secret, keyPrefix: key.slice(0, 12) });
      expect(kept).not.toContain(key);

      // A new session of the same key on this machine: the same secret, so the receiver needs no change.
      second = await startListener(url, ['--forward-to', receiver.url('/hooks'), '--api-key', key], dev.env);
      expect(second.secret).toBe(first.secret);
      expect(second.output()).toMatch(/^Webhook signing secret of this API key \(as last time\): whsec_\w+\n\(kept in .*; --new-secret makes another\)$/m);
      await triggerAndReceive([], withKeyVariable, first.secret);
      expect(await second.interrupt()).toBe(0);
      // Nothing printed the key; the service logged the sessions by key id, never the key or the secret (which it never sees).
      expect(first.output() + first.errors() + second.output() + second.errors()).not.toContain(key);
      expect(sandboxed.service.logs()).toMatch(new RegExp(`"apiKeyId":"${sandboxed.tenant.apiKeyId}".*"msg":"webhook listen session opened"`));
      expect(sandboxed.service.logs()).not.toContain(key);
      expect(sandboxed.service.logs()).not.toContain(first.secret);
    } finally {
      if (first.child.exitCode === null) first.child.kill('SIGKILL');
      if (second && second.child.exitCode === null) second.child.kill('SIGKILL');
    }
  }, 90_000);

  it('--new-secret makes a new secret, which the following sessions keep', async () => {
    const key = sandboxed.tenant.apiKey;
    const env = { ...dev.env, PAYMENTS_API_KEY: key };
    const before = await startListener(url, ['--forward-to', receiver.url()], env);
    expect(await before.interrupt()).toBe(0);

    const renewed = await startListener(url, ['--forward-to', receiver.url(), '--new-secret', '--json'], env);
    let after: Listener | undefined;
    try {
      const ready = JSON.parse(renewed.output().split('\n')[0]!) as Record<string, unknown>;
      expect(ready).toMatchObject({ ready: true, environmentId: sandboxed.tenant.environmentId, newSecret: true, secret: expect.stringMatching(/^whsec_/) });
      expect(ready.secret).not.toBe(before.secret);
      expect(renewed.secret).toBe(ready.secret);
      await triggerAndReceive([], env, renewed.secret);
      expect(await renewed.interrupt()).toBe(0);

      after = await startListener(url, ['--forward-to', receiver.url()], env);
      expect(after.secret).toBe(renewed.secret);
      expect(await after.interrupt()).toBe(0);
    } finally {
      if (renewed.child.exitCode === null) renewed.child.kill('SIGKILL');
      if (after && after.child.exitCode === null) after.child.kill('SIGKILL');
    }
  }, 60_000);

  it('a production key (sk_live_) is refused, by the CLI before it is sent and by the service', async () => {
    const production = await createTenant(sandboxed.service, 'production');
    const env = { ...dev.env, PAYMENTS_API_KEY: production.apiKey };
    const refused = await refusalOf(startListener(url, ['--forward-to', receiver.url()], env));
    expect(refused?.code).toBe(4);
    expect(refused?.errors).toBe(
      'error (unauthorized): PAYMENTS_API_KEY holds a production API key (sk_live_…); webhook listen and trigger take a sandbox key (sk_test_…) only (or pass --token to use the admin token).\n',
    );
    const trigger = await run(url, ['--json', 'trigger', 'payment.paid', '--api-key', production.apiKey], dev.env);
    expect(trigger.code).toBe(4);
    expect(JSON.parse(trigger.stderr)).toEqual({ error: 'unauthorized', message: '--api-key holds a production API key (sk_live_…); webhook listen and trigger take a sandbox key (sk_test_…) only.' });
    expect(refused!.errors + trigger.stderr).not.toContain(production.apiKey);

    // The service refuses it too, in the operator API's format, for the stream and for trigger.
    const stream = await fetch(`${url}${LISTEN_PATH}`, { headers: { authorization: `Bearer ${production.apiKey}` } });
    expect(stream.status).toBe(403);
    expect(await stream.json()).toEqual({ error: 'forbidden', message: expect.stringMatching(/^Production API keys \(sk_live_…\) cannot listen to or trigger events/) });
    const triggered = await fetch(`${url}/internal/trpc/simulators.trigger`, {
      method: 'POST',
      headers: { authorization: `Bearer ${production.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ eventType: 'payment.paid' }),
    });
    expect(triggered.status).toBe(403);
    expect(await triggered.json()).toEqual({ error: 'forbidden', message: expect.stringMatching(/^Production API keys/) });
  });

  it('a key of one environment cannot listen to or trigger in another', async () => {
    const other = await createTenant(sandboxed.service, 'sandbox');
    const env = { ...dev.env, PAYMENTS_API_KEY: sandboxed.tenant.apiKey };
    const refused = await refusalOf(startListener(url, ['--forward-to', receiver.url(), '--env', other.environmentId], env));
    expect(refused?.code).toBe(4);
    expect(refused?.errors).toBe(
      `error (unauthorized): This API key belongs to environment ${sandboxed.tenant.environmentId}; it can listen to and trigger events there only (leave out --env, or use a key of ${other.environmentId}).\n`,
    );
    const trigger = await run(url, ['--json', 'trigger', 'payment.paid', '--env', other.environmentId], env);
    expect(trigger.code).toBe(4);
    expect(JSON.parse(trigger.stderr)).toMatchObject({ error: 'unauthorized', message: expect.stringContaining(`belongs to environment ${sandboxed.tenant.environmentId}`) });

    // The other environment's own key listens there, with a secret of its own.
    const theirs = await startListener(url, ['--forward-to', receiver.url()], { ...dev.env, PAYMENTS_API_KEY: other.apiKey });
    try {
      expect(theirs.output()).toMatch(new RegExp(`^Ready! Forwarding events of ${other.environmentId} `, 'm'));
    } finally {
      expect(await theirs.interrupt()).toBe(0);
    }

    // And a key opens nothing else of the operator API.
    const list = await fetch(`${url}/internal/trpc/organizations.list`, { headers: { authorization: `Bearer ${sandboxed.tenant.apiKey}` } });
    expect(list.status).toBe(403);
    expect(await list.json()).toEqual({ error: 'forbidden', message: expect.stringMatching(/^An API key can only trigger events and listen to them here/) });
  });

  it('a revoked key is refused, and an open listen of it ends', async () => {
    const created = await sandboxed.service.admin.apiKeys.create({ environmentId: sandboxed.tenant.environmentId, name: 'laptop' });
    const env = { ...dev.env, PAYMENTS_API_KEY: created.secret };
    const listener = await startListener(url, ['--forward-to', receiver.url()], env);
    try {
      await sandboxed.service.admin.apiKeys.revoke({ apiKeyId: created.id });
      // The stream notices within seconds; listen's reconnection is refused and it stops with the refusal.
      expect(await eventually(async () => (listener.child.exitCode !== null ? listener.child.exitCode : undefined), 20_000, 'listen to stop')).toBe(4);
      expect(listener.errors()).toBe('error (unauthorized): This API key has been revoked. Check --api-key/PAYMENTS_API_KEY: a sandbox key (sk_test_…) that has not been revoked.\n');
    } finally {
      if (listener.child.exitCode === null) listener.child.kill('SIGKILL');
    }

    const refused = await refusalOf(startListener(url, ['--forward-to', receiver.url()], env));
    expect(refused?.code).toBe(4);
    expect(refused?.errors).toMatch(/^error \(unauthorized\): This API key has been revoked\./);
    const trigger = await run(url, ['trigger', 'payment.paid'], env);
    expect(trigger.code).toBe(4);
    expect(trigger.stderr).toBe('error (unauthorized): This API key has been revoked. Check --api-key/PAYMENTS_API_KEY: a sandbox key (sk_test_…) that has not been revoked.\n');
  }, 60_000);

  it('limits a key: at most 5 open listen streams per node, and each trigger counts in its create window', async () => {
    const created = await sandboxed.service.admin.apiKeys.create({ environmentId: sandboxed.tenant.environmentId, name: 'limited' });
    const open = (key: string, signal?: AbortSignal) => fetch(`${url}${LISTEN_PATH}`, { headers: { authorization: `Bearer ${key}` }, signal });
    const stop = new AbortController();
    try {
      const streams = await Promise.all(Array.from({ length: 5 }, () => open(created.secret, stop.signal)));
      expect(streams.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      const sixth = await open(created.secret);
      expect(sixth.status).toBe(429);
      expect(sixth.headers.get('retry-after')).toBe('5');
      expect(await sixth.json()).toEqual({ error: 'rate_limited', message: 'This API key already has 5 webhook listen sessions open here; stop one first.' });
      // Another key is not held back by this one's streams.
      const other = await open(sandboxed.tenant.apiKey, stop.signal);
      expect(other.status).toBe(200);
    } finally {
      stop.abort();
    }
    // Once closed, the streams free their places.
    await eventually(async () => {
      const again = await open(created.secret);
      await again.body?.cancel();
      return again.status === 200 ? true : undefined;
    }, 10_000, 'the places to be freed');

    await sandboxed.service.admin.apiKeys.setRateLimits({ apiKeyId: created.id, limits: { payments_create: 1 } });
    const env = { ...dev.env, PAYMENTS_API_KEY: created.secret };
    expect((await run(url, ['--json', 'trigger', 'payment.pending'], env)).code).toBe(0);
    const refused = await run(url, ['--json', 'trigger', 'payment.pending'], env);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stderr)).toEqual({ error: 'unavailable', message: expect.stringMatching(/^Too many requests with this API key \(1 a minute\); try again in \d+ s\.$/) });
  }, 60_000);

  it('an unknown key is unauthorized in the operator API format, and never echoed', async () => {
    const unknown = `sk_test_${'0'.repeat(32)}`;
    const stream = await fetch(`${url}${LISTEN_PATH}`, { headers: { authorization: `Bearer ${unknown}` } });
    expect(stream.status).toBe(401);
    expect(await stream.json()).toEqual({ error: 'unauthorized', message: 'Unknown API key.' });
    const both = await run(url, ['--token', 'adm_x', 'trigger', 'payment.paid', '--api-key', unknown], dev.env);
    expect(both.code).toBe(2);
    expect(both.stderr).toBe('error (usage): pass --api-key or --token, not both.\n');

    // Operator commands still need the admin token; with only a key, the CLI says what the key is for.
    const operatorCommand = await run(url, ['env', 'list'], { ...dev.env, PAYMENTS_API_KEY: sandboxed.tenant.apiKey });
    expect(operatorCommand.code).toBe(4);
    expect(operatorCommand.stderr).toMatch(/^error \(unauthorized\): no admin token: .* An API key \(PAYMENTS_API_KEY\) works for webhook listen and trigger only\.\n$/);
  });
});
