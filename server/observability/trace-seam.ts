/**
 * What the service's code asks of tracing, with no OpenTelemetry in it: until
 * tracing starts (observability/tracing.ts, only with
 * OTEL_EXPORTER_OTLP_ENDPOINT) every function here is a no-op, so the code
 * that calls them (the gateway calls, the request log, the webhook
 * dispatcher) loads nothing of OpenTelemetry and costs nothing.
 */

/** A span's context as the tracer holds it (opaque here): what a later span links to. */
export type TraceLink = { readonly traceId: string; readonly spanId: string };

export type SpanAttributes = Record<string, string | number | boolean>;

/** Where tracing tells of its own trouble: pino's `warn` and `info` shape. */
export interface TracingLog {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

export interface TraceSeam {
  /** True once tracing has started (decided before the service is built, so per-request work can be left out). */
  readonly on: boolean;
  /** The trace and span ids of the active span (the request's, in a request), for its log line. */
  activeIds(): { traceId: string; spanId: string } | undefined;
  /** Names the active HTTP server span by its route template (`POST /v1/payments/{id}`). */
  nameRequest(route: string): void;
  /** Runs `work` in a child span of the active one; a rejection marks it failed. `onlyInTrace`: no span at all outside a trace. */
  inSpan<T>(name: string, attributes: SpanAttributes, work: () => Promise<T>, options?: { onlyInTrace?: boolean }): Promise<T>;
  /** The active span's context, to link to later (null: none, or tracing off). */
  currentLink(): TraceLink | null;
  /** Runs `work` as the root of a trace of its own that links to `links` (work caused by earlier requests). */
  inLinkedRoot<T>(name: string, attributes: SpanAttributes, links: readonly TraceLink[], work: () => Promise<T>): Promise<T>;
  /** Sends the spans still buffered and stops (at shutdown). */
  shutdown(): Promise<void>;
  /** Where tracing reports its exporter failing and recovering: the service's log once it has one (stderr until then). */
  logTo(log: TracingLog): void;
}

const off: TraceSeam = {
  on: false,
  activeIds: () => undefined,
  nameRequest: () => {},
  inSpan: (_name, _attributes, work) => work(),
  currentLink: () => null,
  inLinkedRoot: (_name, _attributes, _links, work) => work(),
  shutdown: async () => {},
  logTo: () => {},
};

/** The seam in use: off until tracing installs its own. */
export const tracing: TraceSeam = { ...off };

export function installTracing(implementation: TraceSeam): void {
  Object.assign(tracing, implementation);
}
