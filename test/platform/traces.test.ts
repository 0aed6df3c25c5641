/**
 * OpenTelemetry traces, as an operator gets them: the service started the way
 * `npm start` does (server/start.ts, its own process) with
 * OTEL_EXPORTER_OTLP_ENDPOINT pointing at an OTLP/HTTP receiver in this test
 * (a real HTTP server on an ephemeral port, OTLP JSON). One POST /v1/payments
 * is one trace: the request's span, the gateway call with its HTTP request,
 * and its statements, the commit included; its log line names that trace; the
 * webhook delivery it causes is a trace of its own that links to it. Without
 * the variable, nothing of OpenTelemetry is loaded.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import madge from 'madge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statementShape } from '../../server/observability/statement-shape';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { call, validPayment } from '../support/http';
import { eventually } from '../support/outbox-events';
import { startReceiver, type Receiver } from '../support/receiver';
import { listeningLine } from '../support/service-process';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
}
interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  scope: string;
  attributes: Record<string, string | number | boolean | undefined>;
  links: { traceId: string; spanId: string }[];
}

const SERVER = 2;
const CLIENT = 3;
const CONSUMER = 5;

/** An OTLP/HTTP JSON receiver: what the service exports, span by span. */
async function startOtlpReceiver(): Promise<{ url: string; spans: Span[]; requests: { path: string; contentType: string | undefined }[]; close(): Promise<void> }> {
  const spans: Span[] = [];
  const requests: { path: string; contentType: string | undefined }[] = [];
  const value = (v: OtlpValue) => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.boolValue);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', contentType: req.headers['content-type'] });
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: { scopeSpans: { scope: { name: string }; spans: (Omit<Span, 'scope' | 'attributes' | 'links'> & { attributes?: { key: string; value: OtlpValue }[]; links?: { traceId: string; spanId: string }[] })[] }[] }[];
      };
      for (const resource of body.resourceSpans ?? []) {
        for (const scope of resource.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              ...span,
              scope: scope.scope.name,
              attributes: Object.fromEntries((span.attributes ?? []).map((a) => [a.key, value(a.value)])),
              links: (span.links ?? []).map(({ traceId, spanId }) => ({ traceId, spanId })),
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('traces with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
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
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
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
      .map((line) => JSON.parse(line) as { msg: string; traceId?: string; spanId?: string; req?: { method: string; path: string }; res?: { statusCode: number } });

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

  it('leaves probes and scrapes out of the traces', async () => {
    await call(url, 'GET', '/livez');
    await call(url, 'GET', '/readyz');
    const health = await call(url, 'GET', '/v1/health');
    expect(health.status).toBe(200);
    await eventually(async () => otlp.spans.find((s) => s.kind === SERVER && s.name === 'GET /v1/health'), 10_000, 'the /v1/health span');
    expect(otlp.spans.filter((s) => s.kind === SERVER && /\/(livez|readyz|metrics)$/.test(s.name))).toEqual([]);
  });
});

describe('statement shapes', () => {
  it('replaces every literal, quoted, dollar-quoted or numeric, and keeps identifiers', () => {
    expect(statementShape(`insert into "payments" ("id", "amount", "customer") values ('pay_1', 1990, '{"email":"o''brien@example.com"}'::jsonb) returning "t0"."id"`)).toBe(
      `insert into "payments" ("id", "amount", "customer") values (?, ?, ?::jsonb) returning "t0"."id"`,
    );
    expect(statementShape(`select 1 from x where y = E'a\\b' and z = $tag$secret$tag$ and w > 2.5e3 limit 10`)).toBe(`select ? from x where y = ? and z = ? and w > ? limit ?`);
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
