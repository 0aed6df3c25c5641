/**
 * OpenTelemetry traces, as an operator gets them: the service started the way
 * `npm start` does (server/start.ts, its own process) with
 * OTEL_EXPORTER_OTLP_ENDPOINT pointing at an OTLP/HTTP receiver in this test
 * (a real HTTP server on an ephemeral port, OTLP JSON). One POST /v1/payments
 * is one trace: the request's span, the gateway call with its HTTP request,
 * and its statements, the commit included; its log line names that trace; the
 * webhook delivery it causes is a trace of its own that links to it. No span
 * carries personal data (statement values, Redis keys, the client's address).
 * A collector that goes away is one warning in the log, its return one info
 * line. Without the variable, nothing of OpenTelemetry is loaded.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import madge from 'madge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisCommandShape, statementShape } from '../../server/observability/statement-shape';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { call, validPayment } from '../support/http';
import { eventually } from '../support/outbox-events';
import { startReceiver, type Receiver } from '../support/receiver';
import { listeningLine } from '../support/service-process';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver';

const root = fileURLToPath(new URL('../..', import.meta.url));

const SERVER = 2;
const CLIENT = 3;
const CONSUMER = 5;

/** A collector that is there but never answers: each connection on the port is counted and dropped at once. */
async function dropConnectionsOn(port: number): Promise<{ count(): number; close(): Promise<void> }> {
  let count = 0;
  const server = createNetServer((socket) => {
    count += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return { count: () => count, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('traces with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
  let otlp: OtlpReceiver;
  let receiver: Receiver;
  let child: ChildProcessWithoutNullStreams;
  let output = '';
  let dataDir: string;
  let database: TestDatabase | null = null;
  let url: string;
  let apiKey: string;
  let adminToken: string;

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    receiver = await startReceiver();
    dataDir = mkdtempSync(join(tmpdir(), 'payments-traces-'));
    // On PostgreSQL the service gets a fresh database of its own, the demo tenant on it, and Redis (its own key prefix) when there is one.
    database = onPostgres ? await createTestDatabase() : null;
    const redis: Record<string, string> = process.env.REDIS_URL && database ? { REDIS_URL: process.env.REDIS_URL, REDIS_KEY_PREFIX: `test:traces:${process.pid}:` } : {};
    const storage: Record<string, string> = database?.config.kind === 'postgresql' ? { DATABASE_URL: database.config.url, SEED_DEMO: 'true', ...redis } : {};
    child = spawn(process.execPath, ['--import', 'tsx', 'server/start.ts'], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        PORT: '0',
        DATA_DIR: dataDir,
        LOG_FORMAT: 'json',
        LOG_LEVEL: 'info',
        WEBHOOK_ALLOW_LOCAL_URLS: 'true',
        // The log-in below comes through a "proxy" (this test) naming the client's address.
        TRUST_PROXY: 'loopback',
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        // A failed export gives up within 3 s (at most two retries): the collector-gone test counts batches by attempts.
        OTEL_EXPORTER_OTLP_TIMEOUT: '3000',
        ...storage,
      },
    });
    child.stdout.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    const listening = await eventually(async () => listeningLine(output) ?? undefined, 100_000, `the service's listening line:\n${output}`);
    url = listening.url;
    apiKey = readFileSync(listening.files.demoApiKey!, 'utf8').trim();
    adminToken = readFileSync(listening.files.adminToken!, 'utf8').trim();
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await receiver?.close();
    await otlp?.close();
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);

  const logLines = () =>
    output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map(
        (line) =>
          JSON.parse(line) as {
            msg: string;
            level: number;
            traceId?: string;
            spanId?: string;
            req?: { method: string; path: string };
            res?: { statusCode: number };
            component?: string;
            reason?: string;
            droppedSpans?: number;
          },
      );

  it('one POST /v1/payments is one trace: its HTTP span, the gateway call and its HTTP request, its statements and the commit; its log line names it', async () => {
    const auth = await call(url, 'GET', '/v1/auth/test', { key: apiKey });
    const endpoint = await call(url, 'POST', '/internal/trpc/webhooks.createEndpoint', {
      // A secret in the endpoint's query string, as merchants do: it must never reach a span.
      body: { environmentId: auth.body.environment.id, url: receiver.url('/hooks?token=whsec-in-url-s3cret') },
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(endpoint.status).toBe(200);

    const created = await call(url, 'POST', '/v1/payments', { key: apiKey, body: validPayment() });
    expect(created.status).toBe(201);

    const line = await eventually(async () => logLines().find((l) => l.req?.method === 'POST' && l.req.path === '/v1/payments' && l.res?.statusCode === 201), 5_000, 'the request line');
    expect(line.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(line.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(line.msg).toMatch(/^POST \/v1\/payments 201 \d+ms$/);

    // The request's span: the root of its trace, named by its route template.
    const request = await eventually(async () => otlp.spans.find((s) => s.traceId === line.traceId && s.kind === SERVER && !s.parentSpanId), 10_000, 'the request span');
    expect(request.spanId).toBe(line.spanId);
    expect(request.name).toBe('POST /v1/payments');
    expect(request.attributes['http.route']).toBe('/v1/payments');
    expect(request.attributes['http.response.status_code']).toBe(201);

    // The gateway call, a child of the request, and the gateway's HTTP request (undici) inside it.
    const gatewayCall = await eventually(async () => otlp.spans.find((s) => s.traceId === line.traceId && /^gateway gateway_\w+ createPayment$/.test(s.name)), 10_000, 'the gateway call span');
    expect(gatewayCall.parentSpanId).toBe(request.spanId);
    expect(gatewayCall.attributes['gateway.operation']).toBe('createPayment');
    const gatewayHttp = otlp.spans.filter((s) => s.parentSpanId === gatewayCall.spanId && s.kind === CLIENT && s.scope === '@opentelemetry/instrumentation-undici');
    expect(gatewayHttp.length).toBeGreaterThanOrEqual(1);
    expect(gatewayHttp[0]!.traceId).toBe(line.traceId);
    expect(String(gatewayHttp[0]!.attributes['url.full'])).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);

    // One trace: every span of it descends from the request's span.
    const trace = otlp.spans.filter((s) => s.traceId === line.traceId);
    const ids = new Set(trace.map((s) => s.spanId));
    expect(trace.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId)).map((s) => s.name)).toEqual(['POST /v1/payments']);

    const statements = trace.filter((s) => s.scope === '@opentelemetry/instrumentation-pg' && s.kind === CLIENT);
    if (onPostgres) {
      // Find or replay, insert with the lease, and the commit: at least three round trips, before and after the gateway call.
      expect(statements.length).toBeGreaterThanOrEqual(3);
      // The commit (registration/commit.ts): the row, its events and the usage in one statement, after the gateway call.
      const commit = statements.find((s) => /\bfrom registered\b/i.test(String(s.attributes['db.query.text'] ?? '')));
      expect(commit, 'the commit statement').toBeDefined();
      expect(commit!.parentSpanId).toBe(request.spanId);
    } else {
      // The embedded PGlite database has no driver to instrument: its statements get spans by hand, the commit included.
      expect(statements).toEqual([]);
      const embedded = trace.filter((s) => s.scope === 'service-payments' && /^pglite [A-Z]+$/.test(s.name));
      expect(embedded.length).toBeGreaterThanOrEqual(3);
      const commit = embedded.find((s) => /\bfrom registered\b/i.test(String(s.attributes['db.query.text'] ?? '')));
      expect(commit, 'the commit statement').toBeDefined();
      expect(commit!.parentSpanId).toBe(request.spanId);
      expect(commit!.attributes['db.system.name']).toBe('postgresql');
    }
    // With Redis, the rate limit's commands (ioredis) are part of the request's trace too.
    const redisCommands = trace.filter((s) => s.scope === '@opentelemetry/instrumentation-ioredis');
    if (onPostgres && process.env.REDIS_URL) expect(redisCommands.length).toBeGreaterThanOrEqual(1);
    else expect(redisCommands).toEqual([]);
    // The exporter speaks OTLP/HTTP to the endpoint's /v1/traces.
    expect(otlp.requests.every((r) => r.path === '/v1/traces' && r.contentType === 'application/json')).toBe(true);
  });

  it('the webhook delivery it causes is a trace of its own, linked to the request', async () => {
    const created = await call(url, 'POST', '/v1/payments', { key: apiKey, body: validPayment() });
    expect(created.status).toBe(201);
    const line = await eventually(
      async () => logLines().filter((l) => l.req?.method === 'POST' && l.req.path === '/v1/payments' && l.res?.statusCode === 201).at(-1),
      5_000,
      'the request line',
    );
    const deliveries = await receiver.waitFor(3, 15_000);
    expect(deliveries.length).toBeGreaterThanOrEqual(3);

    const delivery = await eventually(
      async () => otlp.spans.find((s) => s.name === 'webhook delivery' && s.links.some((link) => link.traceId === line.traceId)),
      10_000,
      'a delivery span linked to the request',
    );
    expect(delivery.kind).toBe(CONSUMER);
    expect(delivery.parentSpanId ?? '').toBe('');
    expect(delivery.traceId).not.toBe(line.traceId);
    expect(delivery.links).toContainEqual({ traceId: line.traceId, spanId: line.spanId });
    expect(delivery.attributes['webhook.delivery_id']).toMatch(/^wd_/);
    expect(String(delivery.attributes['webhook.event_type'])).toMatch(/^payment\./);
    // The POST to the merchant's receiver, inside the delivery's trace.
    const post = await eventually(
      async () => otlp.spans.find((s) => s.parentSpanId === delivery.spanId && s.kind === CLIENT && s.scope === '@opentelemetry/instrumentation-undici'),
      10_000,
      'the delivery POST span',
    );
    expect(String(post.attributes['url.full'])).toBe(`${receiver.url('/hooks')}?REDACTED`);
    expect(post.attributes['http.response.status_code']).toBe(200);
  });

  it('keeps query strings out of every span: a secret in a webhook URL, personal data in a lookup', async () => {
    const lookup = await call(url, 'GET', '/v1/subscriptions?externalId=private-order-s3cret', { key: apiKey });
    expect([200, 404]).toContain(lookup.status);
    const span = await eventually(async () => otlp.spans.find((s) => s.kind === SERVER && s.name === 'GET /v1/subscriptions'), 10_000, 'the lookup span');
    expect(span.attributes['url.query']).toBe('REDACTED');
    await receiver.waitFor(1, 15_000);
    await eventually(async () => otlp.spans.find((s) => s.name === 'webhook delivery'), 10_000, 'a delivery span');
    expect(JSON.stringify(otlp.spans)).not.toMatch(/s3cret/);
  });

  it('shows statements without their values: no customer data reaches a span', async () => {
    // validPayment()'s customer, in every payment this file created.
    const everything = JSON.stringify(otlp.spans);
    expect(everything).not.toContain('maria@example.com');
    expect(everything).not.toContain('Maria Silva');
    expect(everything).not.toContain('123.456.789-09');
    {
      const inserts = otlp.spans.filter((s) => /^insert into "?payments"?/i.test(String(s.attributes['db.query.text'] ?? '')));
      expect(inserts.length).toBeGreaterThanOrEqual(1);
      expect(String(inserts[0]!.attributes['db.query.text'])).toMatch(/values \(\?, \?/i);
    }
  });

  it('no personal data in any span: a dashboard log-in, refused then accepted, leaves neither the e-mail nor the client address', async () => {
    const email = `traced-login-${process.pid}@example.com`;
    const password = 'correct horse battery staple';
    const clientAddress = '203.0.113.57';
    const created = await call(url, 'POST', '/internal/trpc/users.create', { body: { email, password }, headers: { authorization: `Bearer ${adminToken}` } });
    expect(created.status).toBe(200);
    const from = { 'x-forwarded-for': clientAddress };
    // A wrong password counts in the throttle's windows, keyed by the address and the e-mail (in Redis when there is one).
    expect((await call(url, 'POST', '/internal/trpc/auth.login', { body: { email, password: 'wrong guess' }, headers: from })).status).toBe(401);
    expect((await call(url, 'POST', '/internal/trpc/auth.login', { body: { email, password }, headers: from })).status).toBe(200);

    const logins = await eventually(
      async () => {
        const found = otlp.spans.filter((s) => s.kind === SERVER && /auth\.login$/.test(String(s.attributes['url.path'] ?? '')));
        return found.length >= 2 ? found : undefined;
      },
      10_000,
      'the two log-in request spans',
    );
    const traces = new Set(logins.map((span) => span.traceId));
    const inLogins = () => otlp.spans.filter((s) => traces.has(s.traceId));
    if (onPostgres && process.env.REDIS_URL) {
      // The throttle's commands are traced (not left out), without their keys.
      const commands = await eventually(async () => {
        const found = inLogins().filter((s) => s.scope === '@opentelemetry/instrumentation-ioredis');
        return found.length >= 2 ? found : undefined;
      }, 10_000, "the throttle's Redis commands");
      for (const command of commands) expect(String(command.attributes['db.query.text'])).toMatch(/^\w+( \?)*$/);
    }
    const statements = inLogins().filter((s) => /^select\b/i.test(String(s.attributes['db.query.text'] ?? '')));
    expect(statements.length, 'the log-in reads the user').toBeGreaterThanOrEqual(1);

    // Every attribute of every span this file has seen, the log-ins' included.
    const attributes = otlp.spans.flatMap((s) => Object.entries(s.attributes).map(([key, value]) => `${s.name} ${key}=${String(value)}`));
    expect(attributes.filter((a) => a.toLowerCase().includes(email))).toEqual([]);
    expect(attributes.filter((a) => a.includes(clientAddress))).toEqual([]);
    // Request spans name no client at all (the peer of a gateway call or a delivery is the gateway's or merchant's server).
    const requests = otlp.spans.filter((s) => s.kind === SERVER);
    expect(requests.filter((s) => 'client.address' in s.attributes || 'network.peer.address' in s.attributes).map((s) => s.name)).toEqual([]);
  });

  it('leaves probes and scrapes out of the traces', async () => {
    await call(url, 'GET', '/livez');
    await call(url, 'GET', '/readyz');
    const health = await call(url, 'GET', '/v1/health');
    expect(health.status).toBe(200);
    await eventually(async () => otlp.spans.find((s) => s.kind === SERVER && s.name === 'GET /v1/health'), 10_000, 'the /v1/health span');
    expect(otlp.spans.filter((s) => s.kind === SERVER && /\/(livez|readyz|metrics)$/.test(s.name))).toEqual([]);
  });

  it('tells once in its log when trace export fails (the collector went away), not once per batch, and once when it is back', async () => {
    const told = (pattern: RegExp) => logLines().filter((line) => pattern.test(line.msg));
    // Exports succeed now (a span arrives), whatever an earlier slow moment of this busy machine may have logged.
    const seen = otlp.spans.length;
    expect((await call(url, 'GET', '/v1/health')).status).toBe(200);
    await eventually(async () => otlp.spans.slice(seen).find((s) => s.kind === SERVER && s.name === 'GET /v1/health'), 10_000, 'an exported span');
    const earlier = { failing: told(/^trace export failing/).length, recovered: told(/^trace export recovered/).length };
    const failing = () => told(/^trace export failing/).slice(earlier.failing);
    const recoveredLines = () => told(/^trace export recovered/).slice(earlier.recovered);
    const port = Number(new URL(otlp.url).port);
    await otlp.close();
    // A request while the collector is away: the batch of its spans fails, the port being closed.
    expect((await call(url, 'GET', '/v1/health')).status).toBe(200);
    const warning = await eventually(async () => failing()[0], 15_000, 'the warning');
    expect(warning).toMatchObject({ level: 40, component: 'tracing', collector: `http://127.0.0.1:${port}` });
    expect(warning.reason).toMatch(/ECONNREFUSED/);

    // Something on the port that drops every connection, counting them: each export attempt is seen, and fails.
    const attempts = await dropConnectionsOn(port);
    try {
      // A batch makes at most three attempts within OTEL_EXPORTER_OTLP_TIMEOUT (3 s; retries after about 1 s and 2.5 s):
      // nine attempts are three batches or more.
      while (attempts.count() < 9) {
        const before = attempts.count();
        expect((await call(url, 'GET', '/v1/health')).status).toBe(200);
        await eventually(async () => (attempts.count() > before ? true : undefined), 15_000, 'an export attempt');
      }
    } finally {
      await attempts.close();
    }
    expect(failing()).toHaveLength(1);

    // The collector back on its port: spans arrive again, and that is told once.
    otlp = await startOtlpReceiver(port);
    expect((await call(url, 'GET', '/v1/health')).status).toBe(200);
    await eventually(async () => otlp.spans.find((s) => s.name === 'GET /v1/health'), 15_000, 'a span at the collector again');
    const recovered = await eventually(async () => recoveredLines()[0], 15_000, 'the recovery line');
    expect(recovered).toMatchObject({ level: 30, component: 'tracing' });
    expect(recovered.droppedSpans).toBeGreaterThanOrEqual(4);
    expect(failing()).toHaveLength(1);
    expect(recoveredLines()).toHaveLength(1);
  }, 90_000);
});

describe('statement shapes', () => {
  it('replaces every literal, quoted, dollar-quoted or numeric, and keeps identifiers', () => {
    expect(statementShape(`insert into "payments" ("id", "amount", "customer") values ('pay_1', 1990, '{"email":"o''brien@example.com"}'::jsonb) returning "t0"."id"`)).toBe(
      `insert into "payments" ("id", "amount", "customer") values (?, ?, ?::jsonb) returning "t0"."id"`,
    );
    expect(statementShape(`select 1 from x where y = E'a\\b' and z = $tag$secret$tag$ and w > 2.5e3 limit 10`)).toBe(`select ? from x where y = ? and z = ? and w > ? limit ?`);
  });

  it('shows a Redis command by its name and the number of its arguments, never a key', () => {
    expect(redisCommandShape('evalsha', ['3f2a', 1, 'p:login:email:203.0.113.5|ana@example.com', 1, 900])).toBe('evalsha ? ? ? ? ?');
    expect(redisCommandShape('ping', [])).toBe('ping');
  });
});

describe('tracing off', () => {
  it('loads nothing of OpenTelemetry: no module the service loads imports it; start.ts imports tracing on demand', async () => {
    const server = fileURLToPath(new URL('../../server/', import.meta.url));
    const runtimeGraph = (entry: string) =>
      madge(`${server}${entry}`, { baseDir: server, fileExtensions: ['ts'], detectiveOptions: { ts: { skipTypeImports: true, skipAsyncImports: true } } });
    // start.ts loads the version check only; main.ts and tracing.ts are import()ed.
    expect(Object.keys((await runtimeGraph('start.ts')).obj()).sort()).toEqual(['runtime/require-node.ts', 'start.ts']);
    expect(readFileSync(join(server, 'start.ts'), 'utf8')).toMatch(/if \(process\.env\.OTEL_EXPORTER_OTLP_ENDPOINT[^{]*\{\s*const \{ startTracing \} = await import\('\.\/observability\/tracing'\)/);
    const loaded = Object.keys((await runtimeGraph('main.ts')).obj());
    expect(loaded).toContain('runtime/service.ts');
    expect(loaded).toContain('observability/trace-seam.ts');
    expect(loaded).not.toContain('observability/tracing.ts');
    const importsTelemetry = loaded.filter((file) => /^\s*import\s[^;]*from\s+'(@opentelemetry\/|import-in-the-middle)/m.test(readFileSync(join(server, file), 'utf8')));
    expect(importsTelemetry).toEqual([]);
  });
});
