/**
 * One HTTP call to the service with its retries: each attempt has its own
 * timeout; 429, 500, 502, 503, 504 and network failures are retried with
 * backoff (honouring `Retry-After`); every other answer is final.
 */
import { PaymentsApiError, PaymentsConnectionError, PaymentsError, PaymentsTimeoutError } from './errors.js';
import { responseMetadata, withResponse, type WithResponse } from './response.js';
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
  /** Sent with every request, before the per-request ones. */
  headers: Record<string, string>;
  fetch: typeof fetch;
}

/** Per-call overrides of the client's settings. */
export interface RequestOptions {
  /** Cancels the call (and its retries) from outside; the abort reason is thrown as is. */
  signal?: AbortSignal;
  /** Per attempt, in milliseconds, for this call. */
  timeoutMs?: number;
  /** Retries after the first attempt, for this call (`0` turns them off). */
  maxRetries?: number;
  /**
   * `X-Request-Id` of this call (1 to 128 of `A-Z a-z 0-9 . _ : -`), the
   * same on every attempt; the service logs it and answers it back. Without
   * it the SDK makes one, so even a call that got no answer has an id.
   */
  requestId?: string;
  /** Extra headers for this call. `Authorization`, `Content-Type` and `Content-Length` are the SDK's own. */
  headers?: Record<string, string>;
}

export interface HttpRequest {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  authenticated?: boolean;
}

/** What the service accepts as a caller's request id (anything else it replaces with its own). */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const RESERVED_HEADERS = new Set(['authorization', 'content-type', 'content-length', 'host']);

/** Merges extra headers under lowercase names, refusing the ones the SDK must control. */
export function extraHeaders(into: Record<string, string>, extra: Record<string, string> | undefined, where: string): void {
  for (const [name, value] of Object.entries(extra ?? {})) {
    const key = name.toLowerCase();
    if (RESERVED_HEADERS.has(key)) throw new TypeError(`${where}: the ${name} header is set by the SDK and cannot be overridden.`);
    if (typeof value !== 'string') throw new TypeError(`${where}: header ${name} must be a string.`);
    into[key] = value;
  }
}

export function checkRequestId(requestId: unknown): string {
  if (typeof requestId !== 'string' || !REQUEST_ID.test(requestId)) {
    throw new TypeError('requestId must be 1 to 128 characters among A-Z, a-z, 0-9, ".", "_", ":" and "-".');
  }
  return requestId;
}

export async function send<T>(settings: TransportSettings, request: HttpRequest, options: RequestOptions = {}): Promise<WithResponse<T>> {
  const url = new URL(request.path.replace(/^\//, ''), settings.baseUrl);
  for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.set(name, value);
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': settings.userAgent, ...settings.headers };
  extraHeaders(headers, options.headers, 'RequestOptions.headers');
  const requestId = options.requestId !== undefined ? checkRequestId(options.requestId) : (headers['x-request-id'] ?? globalThis.crypto.randomUUID());
  headers['x-request-id'] = requestId;
  if (request.authenticated !== false) headers.authorization = settings.authorization();
  // null rather than undefined: fetch's `body` is `BodyInit | null`, which a caller's exactOptionalPropertyTypes holds to.
  const body = request.body === undefined ? null : JSON.stringify(request.body);
  if (body !== null) headers['content-type'] = 'application/json';
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
        ? new PaymentsTimeoutError(timeoutMs, { cause, requestId, attempts: attempt + 1 })
        : new PaymentsConnectionError(`Could not reach the payments service at ${settings.baseUrl.origin}: ${describe(cause)}`, { cause, requestId, attempts: attempt + 1 });
      if (!canRetry) throw failure;
      await sleep(backoffDelayMs(attempt, backoff), options.signal);
      continue;
    }

    const parsed = parseJson(text);
    const metadata = responseMetadata(status, responseHeaders, attempt + 1);
    if (status >= 200 && status < 300) {
      if (text !== '' && parsed === undefined) throw new PaymentsError(`The payments service answered HTTP ${status} with a body that is not JSON.`);
      return withResponse(parsed as T, metadata);
    }
    const retryAfter = parseRetryAfter(responseHeaders.get('retry-after'));
    const error = new PaymentsApiError({ status, body: parsed ?? text, requestId: metadata.requestId, retryAfter, response: metadata });
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
