/**
 * The service's Prometheus metrics: one registry for the process (Prometheus
 * scrapes a process, and the gateway calls, quota and rate-limit refusals are
 * counted where no Services object reaches), its instruments, and
 * `registerCollectedGauge` for values read at scrape time (the outbox lag,
 * later the reconciliation backlog).
 *
 * Conventions: base units in the names (`_seconds`, `_total`), and only
 * bounded label values (a route template, a gateway name, an outcome from a
 * fixed list; never an id, a raw path or a merchant).
 * Nothing here imports the domain, the HTTP layer or the webhooks, so any of
 * them may import it.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export const registry = new Registry();

// Process (CPU, memory, file descriptors, GC) and event-loop (nodejs_eventloop_lag_seconds and its percentiles) metrics, read on scrape.
collectDefaultMetrics({ register: registry });
// prom-client also exposes three gauges whose names end in `_total`, a suffix Prometheus keeps for counters (`promtool check
// metrics` refuses them, and PromQL's rate() would be wrongly invited). Their by-type gauges stay and hold the same counts:
// sum(nodejs_active_handles) is nodejs_active_handles_total.
for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) registry.removeSingleMetric(name);

/** Seconds; from a 5 ms read to a gateway call at its 10 s timeout. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export const httpRequests = new Counter({
  name: 'http_requests_total',
  help: 'HTTP requests answered, by method, route template and status code.',
  labelNames: ['method', 'route', 'status_code'] as const,
  registers: [registry],
});

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Time from a request reaching the service to its answer being written, by method, route template and status code.',
  labelNames: ['method', 'route', 'status_code'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

/** How a gateway call ended: `ok`, the kind of its GatewayFailure (a fixed list: refused, unavailable, …), or `error` (anything else thrown). */
export type GatewayCallOutcome = string;

export const gatewayCalls = new Counter({
  name: 'gateway_calls_total',
  help: 'Calls to payment gateways, by gateway, adapter operation and outcome (ok, the gateway failure\'s kind such as refused or unavailable, or error).',
  labelNames: ['gateway', 'operation', 'outcome'] as const,
  registers: [registry],
});

export const gatewayCallDuration = new Histogram({
  name: 'gateway_call_duration_seconds',
  help: 'Duration of calls to payment gateways, by gateway, adapter operation and outcome.',
  labelNames: ['gateway', 'operation', 'outcome'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

export function observeGatewayCall(gateway: string, operation: string, outcome: GatewayCallOutcome, seconds: number): void {
  gatewayCalls.inc({ gateway, operation, outcome });
  gatewayCallDuration.observe({ gateway, operation, outcome }, seconds);
}

export const webhookDeliveries = new Counter({
  name: 'webhook_deliveries_total',
  help: 'Webhook delivery attempts to merchant endpoints, by outcome (sent: a 2xx in time; failed) and trigger (dispatch, or an operator\'s resend).',
  labelNames: ['outcome', 'trigger'] as const,
  registers: [registry],
});

export const webhookDeliveryDuration = new Histogram({
  name: 'webhook_delivery_duration_seconds',
  help: 'Duration of webhook delivery attempts (until the receiver\'s answer), by outcome.',
  labelNames: ['outcome'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

export function observeWebhookDelivery(outcome: 'SENT' | 'FAILED', trigger: string, durationMs: number): void {
  const label = outcome === 'SENT' ? 'sent' : 'failed';
  webhookDeliveries.inc({ outcome: label, trigger });
  webhookDeliveryDuration.observe({ outcome: label }, durationMs / 1000);
}

export const quotaRefusals = new Counter({
  name: 'quota_refusals_total',
  help: 'Payment creates refused because the organization\'s monthly transaction quota was reached.',
  registers: [registry],
});

export const rateLimitRefusals = new Counter({
  name: 'rate_limit_refusals_total',
  help: 'Requests refused by the per-key rate limit (429), by rate-limit bucket.',
  labelNames: ['bucket'] as const,
  registers: [registry],
});

const collectionFailures = new Counter({
  name: 'metrics_collection_failures_total',
  help: 'Scrapes during which a gauge read at scrape time could not be read (it is left out of that scrape), by gauge.',
  labelNames: ['gauge'] as const,
  registers: [registry],
});

/** One sample of a gauge read at scrape time. */
export interface GaugeSample<L extends string> {
  labels?: Partial<Record<L, string>>;
  value: number;
}

export interface CollectedGaugeSpec<L extends string = never> {
  /** A Prometheus name with its unit (`…_seconds`, `…_total` is for counters). */
  name: string;
  help: string;
  /** Keep their values bounded: no ids. */
  labelNames?: readonly L[];
  /** Read when Prometheus scrapes: a number, or one sample per label set. A rejection leaves the gauge out of that scrape. */
  collect: () => Promise<number | GaugeSample<L>[]> | number | GaugeSample<L>[];
}

/** The sources of each gauge by name; the newest registered one is read (one service per process; tests may start several). */
const gaugeSources = new Map<string, CollectedGaugeSpec<string>['collect'][]>();

/**
 * Registers a gauge whose value is read at scrape time (for example with one
 * SQL query), and returns the function that unregisters it (at shutdown). The
 * same name registered again (a second service in one process) reads the
 * newest registration until it is unregistered.
 */
export function registerCollectedGauge<L extends string = never>(spec: CollectedGaugeSpec<L>): () => void {
  const source = spec.collect as CollectedGaugeSpec<string>['collect'];
  const sources = gaugeSources.get(spec.name);
  if (sources) {
    sources.push(source);
  } else {
    gaugeSources.set(spec.name, [source]);
    new Gauge({
      name: spec.name,
      help: spec.help,
      labelNames: [...(spec.labelNames ?? [])] as string[],
      registers: [registry],
      async collect() {
        this.reset();
        const current = gaugeSources.get(spec.name)?.at(-1);
        if (!current) return;
        try {
          const read = await current();
          if (typeof read === 'number') this.set(read);
          else for (const sample of read) this.set((sample.labels ?? {}) as Record<string, string>, sample.value);
        } catch {
          collectionFailures.inc({ gauge: spec.name });
        }
      },
    });
  }
  return () => {
    const list = gaugeSources.get(spec.name);
    const at = list?.lastIndexOf(source) ?? -1;
    if (!list || at < 0) return;
    list.splice(at, 1);
    if (list.length === 0) {
      gaugeSources.delete(spec.name);
      registry.removeSingleMetric(spec.name);
    }
  };
}

/** The exposition a scrape gets: its text and content type. */
export async function exposition(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}
