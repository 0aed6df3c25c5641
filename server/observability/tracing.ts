/**
 * OpenTelemetry tracing, started by server/start.ts before anything else of
 * the service loads, and only when OTEL_EXPORTER_OTLP_ENDPOINT is set (this
 * module is imported on demand; with tracing off nothing of OpenTelemetry is
 * loaded).
 *
 * Why here and in this order: the official instrumentations patch modules as
 * they load. The service is ESM (also once bundled: esbuild keeps every
 * package external, `packages: 'external'` in build.mjs, so express, pg,
 * undici and ioredis still load from node_modules where the hooks see them),
 * and ESM imports are seen only through import-in-the-middle's loader hook,
 * which must be registered before the importing module graph is loaded. So
 * the hook is registered first, then the SDK starts with the instrumentations
 * enabled, and only then does start.ts import main.ts and its dependencies.
 *
 * What is traced:
 * - http (instrumentation-http): each request as a SERVER span, named by its
 *   route template (`POST /v1/payments`) by http/metrics.ts, which knows the
 *   /v1 templates trpc-to-openapi routes by; probes and scrapes are left out.
 * - express (instrumentation-express): routers and route handlers; the
 *   middleware layers are left out (a dozen per request, no information).
 * - pg (instrumentation-pg): every statement on PostgreSQL (MikroORM uses
 *   `pg`), only inside a trace: the dispatcher's polling does not start
 *   traces of its own; without its values (statement-shape.ts). The embedded
 *   PGlite database has no driver to instrument: its statements get spans by
 *   hand (embedded-db-spans.ts).
 * - undici (instrumentation-undici, on undici's diagnostics channels): the
 *   gateway calls and the webhook deliveries as CLIENT spans.
 * - ioredis: the shared counters' commands, inside a trace, as the command
 *   name and one `?` per argument (the keys hold e-mail and client addresses).
 *
 * No span carries personal data: statements and commands without their
 * values, query strings redacted, and no client address on request spans.
 * - by hand (trace-seam.ts): one span per gateway adapter call
 *   (domain/gateway-calls.ts) around its HTTP calls, and each webhook
 *   delivery attempt as the root of its own trace, linked to the request(s)
 *   whose commit it delivers (webhooks/dispatcher.ts).
 *
 * An export that fails (the collector unreachable, refusing) is one warning
 * in the service's log until exports succeed again, then one info line
 * (trace-export-watch.ts); the spans of the failed batches are dropped.
 *
 * The exporter is OTLP/HTTP: protobuf by default, JSON with
 * OTEL_EXPORTER_OTLP_PROTOCOL (or OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) =
 * http/json; the endpoint and the batch settings (OTEL_BSP_*) are read by
 * the SDK from the environment.
 *
 * Verified, not assumed: test/platform/traces.test.ts runs server/start.ts
 * (through tsx) against an OTLP receiver and finds these spans in one trace;
 * the esbuild bundle (dist/main.js) gave the same spans, exported as
 * protobuf, when checked by hand. Starting the SDK costs about 3 s.
 */
import { register } from 'node:module';
import { redisCommandShape, statementShape } from './statement-shape';
import { collectorOf, watchExport } from './trace-export-watch';
import { installTracing, type TraceSeam, type TracingLog } from './trace-seam';

/** Paths whose requests start no trace: probes and scrapes every few seconds would bury the requests. */
const UNTRACED_PATHS = new Set(['/livez', '/readyz', '/metrics']);

/**
 * Query strings stay out of spans, as they stay out of the request log: a merchant's webhook URL may carry a secret
 * (`?token=…`), an operator's query personal data. What replaces them says that there was one.
 */
const REDACTED = 'REDACTED';

export interface TracingOptions {
  env: NodeJS.ProcessEnv;
  /** Told once if tracing could not start (the service then runs without it). */
  warn(message: string): void;
}

export async function startTracing({ env, warn }: TracingOptions): Promise<boolean> {
  try {
    // First: the loader hook, so the modules imported from here on can be patched. It intercepts only the modules the
    // instrumentations hook (the message channel tells it which) instead of wrapping every module the service loads.
    const { createAddHookMessageChannel } = await import('import-in-the-middle');
    const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
    register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
    const [api, core, sdkNode, http, express, pg, undici, ioredis] = await Promise.all([
      import('@opentelemetry/api'),
      import('@opentelemetry/core'),
      import('@opentelemetry/sdk-node'),
      import('@opentelemetry/instrumentation-http'),
      import('@opentelemetry/instrumentation-express'),
      import('@opentelemetry/instrumentation-pg'),
      import('@opentelemetry/instrumentation-undici'),
      import('@opentelemetry/instrumentation-ioredis'),
    ]);
    const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf';
    const { OTLPTraceExporter } = protocol === 'http/json' ? await import('@opentelemetry/exporter-trace-otlp-http') : await import('@opentelemetry/exporter-trace-otlp-proto');

    // Until the service hands over its logger (runtime/service.ts), a report is a line on stderr.
    let log: TracingLog = {
      warn: (fields, message) => void process.stderr.write(`${message} ${JSON.stringify(fields)}\n`),
      info: (fields, message) => void process.stderr.write(`${message} ${JSON.stringify(fields)}\n`),
    };
    const sdk = new sdkNode.NodeSDK({
      // OTEL_SERVICE_NAME, when set, names the service; this is the default.
      ...(env.OTEL_SERVICE_NAME ? {} : { serviceName: 'service-payments' }),
      // Watched: an unreachable collector is told once in the log, and its return once (trace-export-watch.ts).
      traceExporter: watchExport(new OTLPTraceExporter(), collectorOf(env), () => log),
      instrumentations: [
        new http.HttpInstrumentation({
          ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0]!),
          // The client's address is personal data (and, behind TRUST_PROXY, the forwarded one): no span carries it. The
          // hook's attributes are applied last, and an undefined one is dropped.
          startIncomingSpanHook: (req) => ({
            'client.address': undefined,
            'network.peer.address': undefined,
            'network.peer.port': undefined,
            ...((req.url ?? '').includes('?') ? { 'url.query': REDACTED } : {}),
          }),
        }),
        // Routers and middleware give a span per layer passed (a dozen per request, and for every router the path went by).
        new express.ExpressInstrumentation({ ignoreLayersType: [express.ExpressLayerType.MIDDLEWARE, express.ExpressLayerType.ROUTER] }),
        new pg.PgInstrumentation({
          requireParentSpan: true,
          // Never the parameter values (db.postgresql.values); the text is shaped too, as MikroORM inlines values.
          enhancedDatabaseReporting: false,
          requestHook: (span, { query }) => void span.setAttribute('db.query.text', statementShape(query.text)),
        }),
        new undici.UndiciInstrumentation({
          startSpanHook: (request) => {
            const at = request.path.indexOf('?');
            return at < 0 ? {} : { 'url.full': `${String(request.origin).replace(/\/$/, '')}${request.path.slice(0, at)}?${REDACTED}`, 'url.query': `?${REDACTED}` };
          },
        }),
        new ioredis.IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: redisCommandShape }),
      ],
    });
    sdk.start();
    // The loader must know every hooked module before main.ts's imports begin.
    await waitForAllMessagesAcknowledged();

    const tracer = api.trace.getTracer('service-payments');
    const runIn = async <T>(span: import('@opentelemetry/api').Span, work: () => Promise<T>): Promise<T> => {
      try {
        return await work();
      } catch (error) {
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'failed' });
        throw error;
      } finally {
        span.end();
      }
    };
    const seam: TraceSeam = {
      on: true,
      activeIds() {
        const context = api.trace.getActiveSpan()?.spanContext();
        return context && api.isSpanContextValid(context) ? { traceId: context.traceId, spanId: context.spanId } : undefined;
      },
      nameRequest(route) {
        // The HTTP instrumentation names its server span from this route when the response closes (http.route too).
        const metadata = core.getRPCMetadata(api.context.active());
        if (metadata?.type === core.RPCType.HTTP) metadata.route = route;
      },
      inSpan(name, attributes, work, options) {
        if (options?.onlyInTrace && !api.trace.getActiveSpan()) return work();
        return tracer.startActiveSpan(name, { attributes }, (span) => runIn(span, work));
      },
      currentLink() {
        const context = api.trace.getActiveSpan()?.spanContext();
        return context && api.isSpanContextValid(context) ? context : null;
      },
      inLinkedRoot(name, attributes, links, work) {
        const options = { root: true, kind: api.SpanKind.CONSUMER, attributes, links: links.map((link) => ({ context: link as import('@opentelemetry/api').SpanContext })) };
        return tracer.startActiveSpan(name, options, api.ROOT_CONTEXT, (span) => runIn(span, work));
      },
      shutdown: () => sdk.shutdown(),
      logTo(serviceLog) {
        log = serviceLog;
      },
    };
    installTracing(seam);
    return true;
  } catch (error) {
    warn(`tracing could not start, the service runs without it: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  }
}
