/**
 * An OpenTelemetry collector for tests: an OTLP/HTTP receiver of JSON traces
 * on a real port, keeping every span it is sent with its attributes. The
 * service under test exports to it with OTEL_EXPORTER_OTLP_ENDPOINT and
 * OTEL_EXPORTER_OTLP_PROTOCOL=http/json.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
}
export interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  scope: string;
  attributes: Record<string, string | number | boolean | undefined>;
  links: { traceId: string; spanId: string }[];
}

export interface OtlpReceiver {
  url: string;
  spans: Span[];
  requests: { path: string; contentType: string | undefined }[];
  /** Stops listening and cuts the open connections: the port is closed. */
  close(): Promise<void>;
}

/** An OTLP/HTTP JSON receiver: what the service exports, span by span. `port`: a given one (a collector coming back), or any. */
export async function startOtlpReceiver(port = 0): Promise<OtlpReceiver> {
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
  server.listen(port, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        // The exporter keeps its connection alive: a collector that goes away closes it too.
        server.closeAllConnections();
      }),
  };
}
