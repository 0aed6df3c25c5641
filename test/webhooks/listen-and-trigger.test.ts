/**
 * Local webhook development: `payments-admin webhook listen` runs as its own
 * process against a real service, forwards the sandbox's events to a receiver
 * on this machine signed with the secret it printed, and `payments-admin
 * trigger` produces each event type of the contract through the sandbox.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../sdk/src';
import { WEBHOOK_EVENT_TYPES } from '../../server/contract/event-types';
import { cli } from '../support/cli';
import { onPostgres } from '../support/database';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { startServiceProcess, unusedPort } from '../support/service-process';
import { createTenant } from '../support/tenant';
import { commitPaymentEvents, eventually, holdsFor, newPaymentId } from '../support/outbox-events';
import { startReceiver, type ReceivedDelivery, type Receiver } from '../support/receiver';
import { createEnvironment, createSharedDatabase, newMasterKey, startWebhookService } from '../support/webhook-service';
import { startListener as startListenerProcess, type Listener } from '../support/listener';

const BIN = fileURLToPath(new URL('../../bin/payments-admin.js', import.meta.url));

/** `webhook listen --forward-to <url>` with the service's admin token (the operator's way), or with none (the local token file of DATA_DIR). */
const startListener = (service: { url: string; adminToken?: string }, forwardTo: string, extra: string[] = [], env: Record<string, string> = {}): Promise<Listener> =>
  startListenerProcess(service.url, ['--forward-to', forwardTo, ...extra], {
    globalArgs: service.adminToken ? ['--token', service.adminToken] : [],
    env: { ...process.env, ...env },
  });

const verified = (delivery: ReceivedDelivery, secret: string) => verifyWebhook({ rawBody: delivery.raw, headers: delivery.headers as Record<string, string>, secret });

describe('payments-admin webhook listen and trigger', () => {
  let sandboxed: SandboxedService;
  let local: Receiver;
  let registered: Receiver;
  let listener: Listener;

  beforeAll(async () => {
    // What the embedded demo does: the simulators run inside the service.
    sandboxed = await startSandboxedService({
      simulatorsInService: true,
      env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true', WEBHOOK_POLL_INTERVAL_MS: '200' },
      routes: { PIX: 'gateway_b', CARD: 'gateway_a', SUBSCRIPTION: 'gateway_c' },
    });
    local = await startReceiver();
    registered = await startReceiver();
    // A registered endpoint of the same environment, to compare what it receives with what the listener forwards.
    await sandboxed.service.admin.webhooks.createEndpoint({ environmentId: sandboxed.tenant.environmentId, url: registered.url() });
    listener = await startListener(sandboxed.service, local.url('/hooks'));
  });
  afterAll(async () => {
    if (listener && listener.child.exitCode === null) listener.child.kill('SIGKILL');
    await local?.close();
    await registered?.close();
    await sandboxed?.stop();
  });

  const receivedOf = (eventIds: string[]) => local.received.filter((delivery) => eventIds.includes(delivery.json?.id));

  it('trigger payment.paid: the local receiver gets created, pending and paid, each signed with the printed secret, byte for byte what an endpoint gets', async () => {
    const before = local.received.length;
    const triggered = await cli(sandboxed.service, ['trigger', 'payment.paid']);
    expect(triggered.code, triggered.stderr).toBe(0);
    expect(triggered.json.environmentId).toBe(sandboxed.tenant.environmentId);
    expect(triggered.json.events.map((e: { type: string }) => e.type)).toEqual(['payment.created', 'payment.pending', 'payment.paid']);

    const deliveries = (await local.waitFor(before + 3)).slice(before);
    expect(deliveries.map((d) => d.json.type)).toEqual(['payment.created', 'payment.pending', 'payment.paid']);
    expect(deliveries.map((d) => d.json.id)).toEqual(triggered.json.events.map((e: { id: string }) => e.id));
    for (const delivery of deliveries) {
      const event = verified(delivery, listener.secret);
      expect(event.data).toMatchObject({ paymentId: triggered.json.resourceId });
      expect(delivery.headers).toMatchObject({
        'content-type': 'application/json',
        'user-agent': 'service-payments-webhooks/1.0',
        'x-service-event': delivery.json.type,
      });
      expect(delivery.headers['x-service-delivery-id']).toMatch(/^wd_[0-9a-z]{24}$/);
      expect(delivery.headers['x-service-timestamp']).toMatch(/^\d+$/);
      expect(delivery.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
      // A different secret does not verify it.
      expect(() => verifyWebhook({ rawBody: delivery.raw, headers: delivery.headers as Record<string, string>, secret: 'whsec_other' })).toThrow();
    }

    // The registered endpoint received the very same bytes for each event.
    const endpointBodies = (await registered.waitFor(3)).map((d) => d.raw);
    expect(endpointBodies).toEqual(deliveries.map((d) => d.raw));

    // One line per delivery: time, type, event id, the local answer and its duration.
    await eventually(async () => deliveries.every((d) => listener.output().includes(d.json.id)), 5_000, 'the listener lines');
    for (const delivery of deliveries) {
      expect(listener.output()).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d  ${delivery.json.type.replace('.', '\\.')}  ${delivery.json.id}  → 200 \\(\\d+ ms\\)$`, 'm'));
    }
  });

  it.each(WEBHOOK_EVENT_TYPES.map((type) => [type]))('trigger %s: the event reaches the local receiver', async (type) => {
    const triggered = await cli(sandboxed.service, ['trigger', type, '--env', sandboxed.tenant.environmentId]);
    expect(triggered.code, triggered.stderr).toBe(0);
    const events: { id: string; type: string }[] = triggered.json.events;
    const wanted = events.find((event) => event.type === type);
    expect(wanted, JSON.stringify(events)).toBeDefined();
    const arrived = await eventually(async () => {
      const got = receivedOf(events.map((e) => e.id));
      return got.length === events.length ? got : undefined;
    }, 15_000, `the events of ${type}`);
    // In commit order, each verifying with the session's secret.
    expect(arrived.map((d) => d.json.id)).toEqual(events.map((e) => e.id));
    for (const delivery of arrived) expect(verified(delivery, listener.secret).type).toBe(delivery.json.type);
  });

  it('reports a receiver that is down, and keeps going', async () => {
    const other = await startListener(sandboxed.service, 'http://127.0.0.1:9/hooks');
    try {
      const triggered = await cli(sandboxed.service, ['trigger', 'payment.pending']);
      expect(triggered.code, triggered.stderr).toBe(0);
      const ids: string[] = triggered.json.events.map((e: { id: string }) => e.id);
      await eventually(async () => ids.every((id) => other.output().includes(id)), 15_000, 'the failure lines');
      for (const id of ids) expect(other.output()).toMatch(new RegExp(`${id}  → error: .*ECONNREFUSED`));
    } finally {
      expect(await other.interrupt()).toBe(0);
    }
  });

  it('refuses a production environment, for listen and for trigger', async () => {
    const production = await createTenant(sandboxed.service, 'production');
    const refused = await startListener(sandboxed.service, local.url(), ['--env', production.environmentId]).then(
      () => null,
      (error: { code: number; errors: string }) => error,
    );
    // Refused input: exit 2, one line with the stable code.
    expect(refused?.code).toBe(2);
    expect(refused?.errors).toMatch(/^error \(invalid\): .*production environment; only sandbox environments/);

    const trigger = await cli(sandboxed.service, ['trigger', 'payment.paid', '--env', production.environmentId]);
    expect(trigger.code).toBe(2);
    expect(JSON.parse(trigger.stderr)).toMatchObject({ error: 'invalid', message: expect.stringMatching(/production environment/) });
  });

  it('an unknown environment is not_found (exit 3), for listen and for trigger', async () => {
    const refused = await startListener(sandboxed.service, local.url(), ['--env', 'env_nope']).then(
      () => null,
      (error: { code: number; errors: string }) => error,
    );
    expect(refused?.code).toBe(3);
    expect(refused?.errors).toBe('error (not_found): Environment env_nope does not exist.\n');
    const trigger = await cli(sandboxed.service, ['trigger', 'payment.paid', '--env', 'env_nope']);
    expect(trigger.code).toBe(3);
    expect(JSON.parse(trigger.stderr)).toEqual({ error: 'not_found', message: 'Environment env_nope does not exist.' });
  });

  it('refuses a wrong admin token', async () => {
    const refused = await startListener({ url: sandboxed.service.url, adminToken: 'adm_wrong' }, local.url()).then(
      () => null,
      (error: { code: number; errors: string }) => error,
    );
    expect(refused?.code).toBe(4);
    expect(refused?.errors).toMatch(/^error \(unauthorized\): .*admin token/);
  });

  it('stops on Ctrl-C with exit code 0', async () => {
    expect(await listener.interrupt()).toBe(0);
    expect(listener.output()).toMatch(/^Stopped\.$/m);
  });
});

describe('webhook listen and trigger against `npm start` (the embedded demo), as the README writes them', () => {
  it('the receiver gets payment.created, payment.pending and payment.paid, each verifying with the printed secret', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'payments-listen-start-'));
    const service = await startServiceProcess({ DATA_DIR: dataDir });
    const receiver = await startReceiver();
    let listener: Listener | undefined;
    try {
      // No token, no environment: the CLI finds the token in DATA_DIR and the demo's only sandbox by itself.
      listener = await startListener({ url: service.url }, receiver.url('/hooks'), [], { DATA_DIR: dataDir });
      const { stdout } = await promisify(execFile)(process.execPath, [BIN, '--url', service.url, '--json', 'trigger', 'payment.paid'], { env: { ...process.env, DATA_DIR: dataDir } });
      const triggered = JSON.parse(stdout) as { events: { id: string; type: string }[] };
      const deliveries = await receiver.waitFor(3);
      expect(deliveries.map((d) => d.json.type)).toEqual(['payment.created', 'payment.pending', 'payment.paid']);
      expect(deliveries.map((d) => d.json.id)).toEqual(triggered.events.map((e) => e.id));
      for (const delivery of deliveries) expect(verified(delivery, listener.secret).id).toBe(delivery.json.id);
    } finally {
      if (listener) expect(await listener.interrupt()).toBe(0);
      await receiver.close();
      expect(await service.stop()).toBe(0);
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('webhook listen across a restart of the service', () => {
  it('lets the service stop at once, says once that it lost it, and resumes quietly when it is back', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'payments-listen-restart-'));
    const port = String(await unusedPort());
    let service = await startServiceProcess({ DATA_DIR: dataDir, PORT: port });
    const receiver = await startReceiver();
    let listener: Listener | undefined;
    try {
      listener = await startListener({ url: service.url }, receiver.url('/hooks'), [], { DATA_DIR: dataDir });
      // Stopping with a listener attached: the stream ends with the service, not at the shutdown timeout (10 s).
      const stopping = Date.now();
      expect(await service.stop()).toBe(0);
      expect(Date.now() - stopping).toBeLessThan(5_000);
      await eventually(async () => /lost; reconnecting/.test(listener!.output()), 15_000, 'the lost connection said');
      // Said once, however many reconnection attempts (one a second) fail while the service is down: only time shows it.
      const once = () => listener!.output().match(/lost; reconnecting/g)?.length === 1 && !/Reconnected/.test(listener!.output());
      await holdsFor(3_500, once, 'one "lost" line and no reconnection');

      service = await startServiceProcess({ DATA_DIR: dataDir, PORT: port });
      await eventually(async () => (/Reconnected; resuming after event #\d+\./.test(listener!.output()) ? true : undefined), 15_000, 'the reconnection');
      const { stdout } = await promisify(execFile)(process.execPath, [BIN, '--url', service.url, '--json', 'trigger', 'payment.paid'], { env: { ...process.env, DATA_DIR: dataDir } });
      const triggered = JSON.parse(stdout) as { events: { id: string }[] };
      const deliveries = await receiver.waitFor(3);
      expect(deliveries.map((d) => d.json.id)).toEqual(triggered.events.map((e) => e.id));
      expect(listener.output().match(/Reconnected/g)).toHaveLength(1);
    } finally {
      if (listener) expect(await listener.interrupt()).toBe(0);
      await receiver.close();
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe.runIf(onPostgres)('webhook listen with several service instances', () => {
  it('receives events committed through another instance, including one whose transaction committed late', async () => {
    const database = await createSharedDatabase();
    const env = { MASTER_KEY: newMasterKey(), WEBHOOK_POLL_INTERVAL_MS: '200' };
    const a = await startWebhookService({ database, env });
    const b = await startWebhookService({ database, env: { ...env, WEBHOOK_DISPATCHER: 'false' } });
    const receiver = await startReceiver();
    let listener: Listener | undefined;
    try {
      const { environmentId } = await createEnvironment(a);
      listener = await startListener(a, receiver.url(), ['--env', environmentId]);

      // Through instance b, whose process has no dispatcher: the listener on a reads the events table itself.
      const committed = await commitPaymentEvents(b, environmentId, newPaymentId(), ['created', 'pending']);
      await receiver.waitFor(2);

      // A transaction takes its sequence first and commits after a later one: the late event still arrives.
      const lateId = newPaymentId();
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const late = b.services.db.fork().transactional(async (tx) => {
        const { recordEvents } = await import('../../server/domain/outbox');
        recordEvents(tx, [{ type: 'payment.created', resourceId: lateId, environmentId, data: { paymentId: lateId } }]);
        await tx.flush();
        await held;
      });
      const after = await commitPaymentEvents(a, environmentId, newPaymentId(), ['created']);
      await receiver.waitFor(3);
      release();
      await late;
      const all = await receiver.waitFor(4);
      expect(all.map((d) => d.json.id).slice(0, 3)).toEqual([...committed.map((e) => e.id), after[0]!.id]);
      expect(all[3]!.json.data.paymentId).toBe(lateId);
      for (const delivery of all) verified(delivery, listener.secret);
    } finally {
      if (listener) expect(await listener.interrupt()).toBe(0);
      await receiver.close();
      await b.stop();
      await a.stop();
      await database.drop();
    }
  });

  it('forwards an event whose transaction was still committing when listen started', async () => {
    const service = await startWebhookService({ env: { WEBHOOK_POLL_INTERVAL_MS: '200' } });
    const receiver = await startReceiver();
    let listener: Listener | undefined;
    try {
      const { environmentId } = await createEnvironment(service);
      const lateId = newPaymentId();
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const late = service.services.db.fork().transactional(async (tx) => {
        const { recordEvents } = await import('../../server/domain/outbox');
        recordEvents(tx, [{ type: 'payment.created', resourceId: lateId, environmentId, data: { paymentId: lateId } }]);
        await tx.flush();
        await held;
      });
      // A later sequence commits first, so the stream starts above the one still held.
      await commitPaymentEvents(service, environmentId, newPaymentId(), ['created']);
      listener = await startListener(service, receiver.url(), ['--env', environmentId]);
      release();
      await late;
      const [delivery] = await receiver.waitFor(1);
      expect(delivery!.json.data.paymentId).toBe(lateId);
      verified(delivery!, listener.secret);
    } finally {
      if (listener) expect(await listener.interrupt()).toBe(0);
      await receiver.close();
      await service.stop();
    }
  });
});
