/**
 * tRPC's express adapter and trpc-to-openapi always write their own error
 * envelope (`code`, Zod issues, the error message); no option changes it.
 * Both report the error to `onError` just before writing, so each edge
 * records its answer there and the envelope is swapped for it on its way
 * out: the adapter's writes are dropped and the edge's body is sent when the
 * adapter ends the response. This is the one place that does it.
 */
import type { RequestHandler, Response } from 'express';
import { ApiError, UNAVAILABLE_RETRY_AFTER_SECONDS } from '../contract/errors';

export interface ErrorBody {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

export function replaceErrorBody(res: Response, replacement: () => ErrorBody | undefined): void {
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.write = ((...args: unknown[]) => (replacement() ? true : write(...args))) as typeof res.write;
  res.end = ((...args: unknown[]) => {
    const reply = replacement();
    if (!reply || res.headersSent) return end(...args);
    res.statusCode = reply.status;
    res.setHeader('content-type', 'application/json');
    for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
    res.removeHeader('content-length');
    return end(reply.body);
  }) as typeof res.end;
}

/** /v1: the contract error recorded by `onError` (http/app.ts); a 503 says when to try again. */
export const contractErrorBodies: RequestHandler = (req, res, next) => {
  replaceErrorBody(res, () => {
    const error = req.apiError;
    if (!error) return undefined;
    const headers = error.code === 'service_unavailable' ? { 'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS) } : undefined;
    return { status: error.status, body: JSON.stringify(error.toBody()), headers };
  });
  next();
};

/**
 * The answer to a request that arrives after the port is bound and before the application is ready (the database is
 * still opening): the contract's 503, so a client or the SDK reads it as any other.
 */
export const STARTING_BODY = JSON.stringify(new ApiError('service_unavailable', {}, 'The service is starting; retry after Retry-After seconds.').toBody());
