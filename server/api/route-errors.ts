/**
 * The error codes a /v1 route documents: those its procedure builder can
 * answer with before the use case runs, and exactly those its use case
 * declares (domain/raises.ts). Nothing is listed by hand, so the OpenAPI
 * document cannot promise a code the route never answers, or miss one.
 */
import type { ErrorCode } from '../contract/errors';
import { AUTHENTICATE } from '../domain/authenticate';
import type { Raises } from '../domain/raises';

/** An authenticated route: the key (401), the route's rate limit (429), and an unexpected failure. */
const AUTHENTICATED: readonly ErrorCode[] = [...AUTHENTICATE.codes, 'rate_limit_exceeded', 'internal_error'];
/** A route that reads a JSON body: it may not parse, or not match the schema. */
const WITH_BODY: readonly ErrorCode[] = ['invalid_json', 'invalid_input'];

export function routeErrors(useCase: Raises | null, options: { body?: boolean } = {}): ErrorCode[] {
  return [...new Set([...AUTHENTICATED, ...(options.body ? WITH_BODY : []), ...(useCase?.codes ?? [])])];
}
