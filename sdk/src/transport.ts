/**
 * One HTTP call to the service with its retries: each attempt has its own
 * timeout; 429, 500, 502, 503, 504 and network failures are retried with
 * backoff (honouring `Retry-After`); every other answer is final.
 */
import { PaymentsApiError, PaymentsConnectionError, PaymentsError, PaymentsTimeoutError } from './errors.js';
import { backoffDelayMs, parseRetryAfter, RETRYABLE_STATUSES, sleep } from './retry-policy.js';

export interface TransportSettings {
  baseUrl: URL;
  /** Returns the `Authorization` value; a function so the key is not a plain property anywhere. */
  authorization: () => string;
  timeoutMs: number;
  maxRetries: number;
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  maxRetryAfterSeconds: number;
  userAgent: string;
  fetch: typeof fetch;
}

/** Per-call overrides of the client's settings. */
export interface RequestOptions {
  /** Cancels the call (and its retries) from outside; the abort reason is thrown as is. */
  signal?: AbortSignal;
  timeoutMs?: number;
  maxRetries?: number;
}

export interface HttpRequest {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  authenticated?: boolean;
}

export async function send<T>(settings: TransportSettings, request: HttpRequest, options: RequestOptions = {}): Promise<T> {
  const url = new URL(request.path.replace(/^\//, ''), settings.baseUrl);
  for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.set(name, value);
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': settings.userAgent };
  if (request.authenticated !== false) headers.authorization = settings.authorization();
  const body = request.body === undefined ? undefined : JSON.stringify(request.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const timeoutMs = options.timeoutMs ?? settings.timeoutMs;
  const maxRetries = Math.max(0, options.maxRetries ?? settings.maxRetries);
  const backoff = { baseDelayMs: settings.retryBaseDelayMs, maxDelayMs: settings.retryMaxDelayMs };

  for (let attempt = 0; ; attempt += 1) {
    const canRetry = attempt < maxRetries;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let status: number;
    let responseHeaders: Headers;
    let text: string;
    try {
      const response = await settings.fetch(url, { method: request.method, headers, body, signal, redirect: 'manual' });
      status = response.status;
      responseHeaders = response.headers;
      // Reading the body is part of the attempt: a stalled body times out like a stalled connection.
      text = await response.text();
    } catch (cause) {
      if (options.signal?.aborted) throw options.signal.reason;
      const failure = timeout.aborted
        ? new PaymentsTimeoutError(timeoutMs, { cause })
        : new PaymentsConnectionError(`Could not reach the payments service at ${settings.baseUrl.origin}: ${describe(cause)}`, { cause });
      if (!canRetry) throw failure;
      await sleep(backoffDelayMs(attempt, backoff), options.signal);
      continue;
    }

    const parsed = parseJson(text);
    if (status >= 200 && status < 300) {
      if (text !== '' && parsed === undefined) throw new PaymentsError(`The payments service answered HTTP ${status} with a body that is not JSON.`);
      return parsed as T;
    }
    const retryAfter = parseRetryAfter(responseHeaders.get('retry-after'));
    const error = new PaymentsApiError({ status, body: parsed ?? text, requestId: responseHeaders.get('x-request-id') ?? undefined, retryAfter });
    if (!canRetry || !RETRYABLE_STATUSES.has(status)) throw error;
    // A wait longer than the caller would accept is theirs to decide: hand the error (with retryAfter) back.
    if (retryAfter !== undefined && retryAfter > settings.maxRetryAfterSeconds) throw error;
    await sleep(retryAfter !== undefined ? retryAfter * 1000 : backoffDelayMs(attempt, backoff), options.signal);
  }
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describe(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = cause.cause instanceof Error ? ` (${cause.cause.message})` : '';
    return `${cause.message}${inner}`;
  }
  return String(cause);
}
