/**
 * HTTP metrics and the `/metrics` exposition.
 *
 * Every request is counted and timed by its route template
 * (`/v1/payments/{id}`), never its raw path: ids in a label would make one
 * series per payment. The /v1 templates come from the procedures' OpenAPI
 * paths (the same table trpc-to-openapi routes by); the other paths the
 * service answers are listed here; anything else is `unmatched`.
 *
 * `/metrics` is operator data (traffic, gateways, merchants' failure rates):
 * on the service's port it takes the admin token as a bearer, like
 * /internal; with METRICS_PORT it is also served without credentials on a
 * listener of its own, meant to be reachable only by Prometheus.
 */
import type { Request, RequestHandler, Response } from 'express';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { v1Router } from '../api/router';
import { LISTEN_PATH } from '../contract/listen-protocol';
import { exposition, httpRequestDuration, httpRequests } from '../observability/metrics';
import { tracing } from '../observability/trace-seam';
import { adminTokenCheck } from './admin-token';

export const METRICS_PATH = '/metrics';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The /v1 procedures' templates, as trpc-to-openapi matches them: case-insensitive, `{param}` one segment. */
const V1_ROUTES: { method: string; pattern: RegExp; template: string }[] = Object.values(v1Router._def.procedures).flatMap((procedure) => {
  const openapi = (procedure as { _def: { meta?: { openapi?: { method: string; path: string } } } })._def.meta?.openapi;
  if (!openapi) return [];
  const source = openapi.path
    .split('/')
    .map((segment) => (/^\{\w+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return [{ method: openapi.method.toUpperCase(), pattern: new RegExp(`^${source}/?$`, 'i'), template: openapi.path }];
});

/** The other paths the service answers: exact ones, then prefixes standing for their whole family. */
const EXACT = new Set(['/livez', '/readyz', METRICS_PATH, '/v1/openapi.json', '/v1/openapi.yaml', LISTEN_PATH]);
const PREFIXES: [prefix: string, template: string][] = [
  ['/internal/trpc', '/internal/trpc'],
  ['/webhooks/', '/webhooks/{gateway}/{accountId}'],
  ['/dashboard', '/dashboard'],
  ['/docs', '/docs'],
];

/** The route template a request was answered under: bounded, whatever the client sent. */
export function routeTemplate(method: string, path: string): string {
  for (const route of V1_ROUTES) if (route.method === method && route.pattern.test(path)) return route.template;
  // A /v1 route asked with another method still names its template (the answer is a 404 or 405 of that route).
  for (const route of V1_ROUTES) if (route.pattern.test(path)) return route.template;
  if (EXACT.has(path)) return path;
  for (const [prefix, template] of PREFIXES) if (path.startsWith(prefix)) return template;
  return 'unmatched';
}

/**
 * Counts and times every request once its answer is written (a connection cut before that is not an answer).
 * With tracing on, the request's span is named by the same template.
 */
export function httpMetrics(): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    // The path as sent, before any mounted router strips its prefix.
    const path = (req.originalUrl ?? req.url).split('?')[0]!;
    const method = METHODS.has(req.method) ? req.method : 'other';
    const route = routeTemplate(method, path);
    res.once('finish', () => {
      // Here, not at the start: express's instrumentation rewrites the route at each layer it passes.
      tracing.nameRequest(route);
      const labels = { method, route, status_code: String(res.statusCode) };
      httpRequests.inc(labels);
      httpRequestDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}

async function writeExposition(res: ServerResponse): Promise<void> {
  const { contentType, body } = await exposition();
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
  res.end(body);
}

/** `GET /metrics` on the service's port: the admin token as a bearer, else 401 (the same answer with or without a merchant's key). */
export function metricsEndpoint(adminToken: string): RequestHandler {
  const authorized = adminTokenCheck(adminToken);
  return (req: Request, res: Response, next) => {
    if (!authorized(req.headers.authorization)) {
      res.status(401).set({ 'www-authenticate': 'Bearer', 'cache-control': 'no-store' }).json({ error: 'unauthorized', message: 'GET /metrics takes the admin token as a bearer (or use METRICS_PORT).' });
      return;
    }
    writeExposition(res).catch(next);
  };
}

/**
 * The METRICS_PORT listener: `GET /metrics` and nothing else, no credentials.
 * Its own server, so it can be bound to an address only Prometheus reaches,
 * and so a scrape never competes with the API's connection limits.
 */
export function metricsServer(onError: (error: unknown) => void): Server {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== METRICS_PATH || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: this listener serves GET /metrics only.\n');
      return;
    }
    writeExposition(res).catch((error: unknown) => {
      onError(error);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end();
    });
  });
}
