/**
 * The service's entry point once built (dist/main.js). It checks the Node
 * version before anything else loads: a module's imports of packages are
 * all evaluated before its own first line, so main.ts, which imports them,
 * is only loaded after the check (the build puts it in its own chunk).
 *
 * Tracing starts here too, for the same reason: its instrumentations hook
 * module loading, so they must be in place before main.ts's imports (express,
 * pg, undici, ioredis) load. Without OTEL_EXPORTER_OTLP_ENDPOINT the tracing
 * module is never imported and nothing of OpenTelemetry loads.
 */
import './runtime/require-node';

if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT && process.env.OTEL_SDK_DISABLED !== 'true') {
  const { startTracing } = await import('./observability/tracing');
  await startTracing({ env: process.env, warn: (message) => process.stderr.write(`${message}\n`) });
}

await import('./main');
