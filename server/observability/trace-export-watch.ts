/**
 * Tells the operator when traces stop reaching the collector, once, and once
 * when they reach it again. Left alone, the OTLP exporter's failures go to
 * OpenTelemetry's diagnostic logger, which is silent unless configured: a
 * collector that moved or went down would lose every span without a word.
 * One line per outage, not one per batch (a batch leaves every few seconds).
 */
import type { NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import type { TracingLog } from './trace-seam';

type SpanExporter = NodeSDKConfiguration['traceExporter'];

/** OpenTelemetry's ExportResultCode.SUCCESS (its enum lives in @opentelemetry/core, which this file does not need to load). */
const SUCCESS = 0;

/** The collector as a log line may name it: its origin, never a path, query or credentials the endpoint may carry. */
export function collectorOf(env: NodeJS.ProcessEnv): string {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '';
  try {
    return new URL(endpoint).origin;
  } catch {
    return 'the OTLP endpoint';
  }
}

/** The exporter, reporting the start and the end of each run of failed exports to `log()` (read at each report). */
export function watchExport(exporter: SpanExporter, collector: string, log: () => TracingLog): SpanExporter {
  let dropped = 0;
  let failingSince: Date | null = null;
  return {
    export(spans, done) {
      exporter.export(spans, (result) => {
        if (result.code !== SUCCESS) {
          dropped += spans.length;
          if (!failingSince) {
            failingSince = new Date();
            const reason = (result.error?.message ?? 'unknown error').slice(0, 200);
            log().warn({ component: 'tracing', collector, reason }, `trace export failing: spans are dropped until the collector at ${collector} answers again`);
          }
        } else if (failingSince) {
          log().info({ component: 'tracing', collector, droppedSpans: dropped, failingSince: failingSince.toISOString() }, `trace export recovered: spans reach ${collector} again`);
          failingSince = null;
          dropped = 0;
        }
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}
