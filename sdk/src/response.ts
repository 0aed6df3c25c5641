/**
 * What the service said about an answer besides its body: the request id to
 * quote to support, the rate-limit window, whether a create was answered
 * with an existing resource. Every call exposes it: on a result as the
 * non-enumerable `lastResponse`, on a `PaymentsApiError` as `response`.
 */

/** The key's quota of the route, from `X-RateLimit-Limit`, `-Remaining` and `-Reset`. */
export interface RateLimitInfo {
  /** Requests allowed per window. */
  limit: number;
  /** Requests left in the current window. */
  remaining: number;
  /** When the current window ends and the quota is full again. */
  resetAt: Date;
}

export interface ResponseMetadata {
  /** HTTP status of the answer. */
  status: number;
  /** `X-Request-Id` of the answer: quote it when asking for support. */
  requestId: string | undefined;
  /**
   * `true` when a create was answered with the resource an earlier request
   * with the same `externalId` created (`Idempotent-Replayed: true`):
   * nothing new was created.
   */
  idempotentReplayed: boolean;
  /** Absent on routes without a key (`health`). */
  rateLimit: RateLimitInfo | undefined;
  /** Every header of the answer, names in lowercase. */
  headers: Readonly<Record<string, string>>;
  /** Attempts this call made, retries included. */
  attempts: number;
}

/** A result with its response metadata. `lastResponse` is not enumerable: it never shows in JSON or in equality checks. */
export type WithResponse<T> = T & { readonly lastResponse: ResponseMetadata };

/** The minimal shape of fetch's `Headers` the SDK reads. */
interface HeaderSource {
  get(name: string): string | null;
  forEach(callback: (value: string, name: string) => void): void;
}

export function responseMetadata(status: number, headers: HeaderSource, attempts: number): ResponseMetadata {
  const all: Record<string, string> = {};
  headers.forEach((value, name) => {
    all[name.toLowerCase()] = value;
  });
  const requestId = headers.get('x-request-id') ?? undefined;
  return {
    status,
    requestId,
    idempotentReplayed: headers.get('idempotent-replayed')?.trim().toLowerCase() === 'true',
    rateLimit: rateLimitOf(headers),
    headers: Object.freeze(all),
    attempts,
  };
}

function rateLimitOf(headers: HeaderSource): RateLimitInfo | undefined {
  const integer = (name: string): number | undefined => {
    const text = headers.get(name)?.trim();
    return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
  };
  const limit = integer('x-ratelimit-limit');
  const remaining = integer('x-ratelimit-remaining');
  // The service sends the end of the window as Unix seconds.
  const reset = integer('x-ratelimit-reset');
  if (limit === undefined || remaining === undefined || reset === undefined) return undefined;
  return { limit, remaining, resetAt: new Date(reset * 1000) };
}

/** Attaches `lastResponse` to an object result without changing what it serializes or compares as. */
export function withResponse<T>(data: T, metadata: ResponseMetadata): WithResponse<T> {
  if (typeof data === 'object' && data !== null) {
    Object.defineProperty(data, 'lastResponse', { value: metadata, enumerable: false, writable: false, configurable: true });
  }
  return data as WithResponse<T>;
}
