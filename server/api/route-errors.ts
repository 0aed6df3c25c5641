/**
 * The error codes a /v1 route documents: those its procedure builder and the
 * HTTP edge can answer with before the use case runs, and exactly those its
 * use case declares (domain/raises.ts). Nothing is listed by hand, so the
 * OpenAPI document cannot promise a code the route never answers, or miss one
 * (test/contract/conformance.test.ts drives every route through them).
 */
import type { ErrorCode } from '../contract/errors';
import { AUTHENTICATE } from '../domain/authenticate';
import type { Raises } from '../domain/raises';

/** An authenticated route: the key (401), the route's rate limit (429), an unexpected failure, and the database out of reach (503, decision 24: the key is read from it). */
const AUTHENTICATED: readonly ErrorCode[] = [...AUTHENTICATE.codes, 'rate_limit_exceeded', 'internal_error', 'service_unavailable'];
/**
 * A POST route: http/json-body.ts reads a body on every one of them, even the
 * routes that take none (cancel, sync), so it may not parse (`invalid_json`),
 * be too large, too deep or not an object, or carry a field the route does not
 * know (`invalid_input`, decision 12).
 */
const WITH_BODY: readonly ErrorCode[] = ['invalid_json', 'invalid_input'];
/** A route whose query parameters are validated (a NUL, too long, repeated): `invalid_input` at the parameter. */
const WITH_QUERY: readonly ErrorCode[] = ['invalid_input'];

export function routeErrors(useCase: Raises | null, options: { body?: boolean; query?: boolean } = {}): ErrorCode[] {
  return [...new Set([...AUTHENTICATED, ...(options.body ? WITH_BODY : []), ...(options.query ? WITH_QUERY : []), ...(useCase?.codes ?? [])])];
}
