import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from 'pino';
import { serializeError } from '../runtime/logger';
import { tracing } from '../observability/trace-seam';
import { unreachableDatabaseReason } from '../db/unreachable';

/** A caller's own request id is kept when it is short and plain; otherwise we mint one. */
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Outside /v1 (the operator API, inbound gateway webhooks) there is no
 * contract error on the request; the status still says what kind of refusal it was.
 */
const CODE_BY_STATUS: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  412: 'precondition_failed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limit_exceeded',
  500: 'internal_error',
  502: 'gateway_error',
  503: 'unavailable',
};

/** What the gateway was asked to do, by the /v1 route that asked (the adapter operations of domain/gateway-calls.ts). */
const GATEWAY_OPERATIONS: [method: string, path: RegExp, operation: string][] = [
  ['POST', /^\/v1\/payments\/?$/, 'createPayment'],
  ['POST', /^\/v1\/payments\/[^/]+\/sync\/?$/, 'getPayment'],
  ['POST', /^\/v1\/payments\/[^/]+\/cancel\/?$/, 'cancelPayment'],
  ['POST', /^\/v1\/subscriptions\/?$/, 'createSubscription'],
  ['POST', /^\/v1\/subscriptions\/[^/]+\/cancel\/?$/, 'cancelSubscription'],
];

/** The path as the client sent it: inside a mounted router (the operator API's /internal/trpc) `req.url` has lost its prefix by the time the line is written. */
const pathOf = (req: IncomingMessage) => ((req as Partial<Request>).originalUrl ?? req.url ?? '').split('?')[0]!;

/** The contract error this request ended with (`req.apiError` on /v1, `req.operatorAnswer` on the operator API), else one read from the status. */
function errorCode(req: IncomingMessage, res: ServerResponse): string | undefined {
  if (res.statusCode < 400) return undefined;
  return (req as Request).apiError?.code ?? (req as Request).operatorAnswer?.code ?? CODE_BY_STATUS[res.statusCode] ?? `http_${res.statusCode}`;
}

/** A 502 names the gateway that failed, what it was asked, and why (the detail the public answer leaves out). */
function gatewayFailure(req: IncomingMessage): Record<string, unknown> | undefined {
  const apiError = (req as Request).apiError;
  if (apiError?.code !== 'gateway_error') return undefined;
  const cause = apiError.cause as (Error & { cause?: { code?: unknown; message?: unknown } }) | undefined;
  const operation = GATEWAY_OPERATIONS.find(([method, path]) => method === req.method && path.test(pathOf(req)))?.[2] ?? `${req.method} ${pathOf(req)}`;
  return {
    gateway: apiError.extra.provider,
    operation,
    ...(cause?.message ? { detail: cause.message } : {}),
    ...(typeof cause?.cause?.code === 'string' ? { reason: cause.cause.code } : {}),
  };
}

/** A 503 `service_unavailable` names why the database was out of reach (a code, never a message or a stack). */
function databaseFailure(req: IncomingMessage): string | undefined {
  const apiError = (req as Request).apiError;
  if (apiError?.code !== 'service_unavailable') return undefined;
  return unreachableDatabaseReason(apiError.cause) ?? undefined;
}

/**
 * One log line per request with its id, method, path (no query string),
 * status, latency, and for a 4xx/5xx the error code. Headers and bodies are
 * never logged: they carry API keys and personal data. The id is echoed in
 * `X-Request-Id`. A gateway failure (502) is a warning about someone else's
 * system, not an error of ours; unexpected failures are logged with their
 * stack where they are caught (http/app.ts), so request lines never carry
 * the stack pino-http makes up for a 5xx.
 */
export function requestLog(log: Logger) {
  return pinoHttp({
    logger: log,
    genReqId: (req, res) => {
      const incoming = req.headers['x-request-id'];
      const id = typeof incoming === 'string' && ACCEPTABLE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    // With tracing on, the request's trace (and its server span): read at its start, where the request's span is active.
    // Left out with tracing off: pino-http makes a child logger per request for custom props, even empty ones.
    ...(tracing.on
      ? {
          customProps: (req: IncomingMessage) => {
            const ids = ((req as TracedRequest).traceIds ??= tracing.activeIds() ?? null);
            return ids ? { traceId: ids.traceId, spanId: ids.spanId } : {};
          },
        }
      : {}),
    wrapSerializers: false,
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, path: req.url.split('?')[0] }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      err: serializeError,
    },
    customLogLevel: (req, res, err) => {
      if ((req as Request).apiError?.code === 'gateway_error') return 'warn';
      // The database out of reach (decision 24): a warning on each request's one line, no stack; probes and background jobs say the rest.
      if (res.statusCode === 503) return 'warn';
      return err || res.statusCode >= 500 ? 'error' : 'info';
    },
    customSuccessObject: (req, res, value: Record<string, unknown>) => {
      const error = errorCode(req, res);
      return error ? { ...value, error } : value;
    },
    customErrorObject: (req, res, err, value: Record<string, unknown>) => {
      const { err: _madeUp, ...rest } = value;
      const gateway = gatewayFailure(req);
      const database = databaseFailure(req);
      // A real exception that escaped to the response (rare: app.ts logs them) keeps its stack; the "failed with status code" one is dropped.
      const genuine = err && !/^failed with status code \d+$/.test(err.message) ? { err } : {};
      return { ...rest, error: errorCode(req, res), ...(gateway ? { ...gateway, durationMs: value.responseTime } : {}), ...(database ? { database } : {}), ...genuine };
    },
    customSuccessMessage: (req, res, responseTime) => `${req.method} ${pathOf(req)} ${res.statusCode}${suffix(errorCode(req, res))} ${Math.round(responseTime)}ms`,
    // pino-http passes the latency as a fourth argument its types leave out.
    customErrorMessage: ((req: IncomingMessage, res: ServerResponse, err: Error, responseTime: number) => {
      const gateway = gatewayFailure(req);
      const head = `${req.method} ${pathOf(req)} ${res.statusCode}${suffix(errorCode(req, res))} ${Math.round(responseTime)}ms`;
      if (gateway) return `${head}: ${gateway.gateway} ${gateway.operation} failed`;
      return err && !/^failed with status code \d+$/.test(err.message) ? `${head}: ${err.message}` : head;
    }) as (req: IncomingMessage, res: ServerResponse, err: Error) => string,
  });
}

const suffix = (code: string | undefined) => (code ? ` ${code}` : '');

/** The ids read once at the request's start (null: no trace), so the line written at its end names the same ones. */
type TracedRequest = IncomingMessage & { traceIds?: { traceId: string; spanId: string } | null };
