/**
 * The /v1 error edge: turns whatever a request failed with into the
 * contract's ApiError (`{error, message?, ...}` and nothing else), once. The
 * domain's refusals keep their code, extra fields and message (the cause
 * stays for the log); errors of the HTTP layer's own checks pass through;
 * Zod input failures become `invalid_input` with `{path, message}` issues;
 * the database out of reach becomes `service_unavailable` (decision 24: a
 * retry later succeeds, it is not our bug); anything unexpected, an
 * operator-only refusal included, becomes a bare `internal_error` that
 * leaks nothing.
 */
import { TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import { ApiError, isApiError, isErrorCode, type ErrorCode, type ValidationIssue } from '../contract/errors';
import { refusalOf } from '../domain/gateway-calls';
import { Refusal } from '../domain/refusal';
import { GatewayFailure } from '../gateways';
import { unreachableDatabaseReason } from '../db/unreachable';

export function issuesFromZod(error: ZodError): ValidationIssue[] {
  return error.issues.flatMap((issue) => {
    const path = issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment));
    // An unknown field is reported at its own path, one issue per field, so the caller sees exactly what to remove.
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => ({ path: [...path, key], message: 'is not a known field' }));
    return [{ path, message: issue.message }];
  });
}

const memo = new WeakMap<object, ApiError>();

export function toApiError(error: unknown): ApiError {
  if (isApiError(error)) return error;
  if (typeof error === 'object' && error !== null) {
    const known = memo.get(error);
    if (known) return known;
  }
  const translated = translate(error);
  if (typeof error === 'object' && error !== null) memo.set(error, translated);
  return translated;
}

function fromRefusal(refusal: Refusal): ApiError {
  if (!isErrorCode(refusal.code)) return new ApiError('internal_error');
  const translated = new ApiError(refusal.code as ErrorCode, refusal.details as never, refusal.message);
  translated.cause = refusal.cause;
  return translated;
}

/** The database out of reach: 503 with the failure kept as the cause, for the request's log line (never the body). */
function unavailable(error: unknown): ApiError {
  const translated = new ApiError('service_unavailable');
  translated.cause = error;
  return translated;
}

function translate(error: unknown): ApiError {
  if (error instanceof Refusal) return fromRefusal(error);
  // A gateway's failure reaches the merchant here, once, in the core's words (domain/gateway-calls.ts).
  if (error instanceof GatewayFailure) return fromRefusal(refusalOf(error));
  if (error instanceof ZodError) return new ApiError('invalid_input', { issues: issuesFromZod(error) });
  if (!(error instanceof TRPCError)) return unreachableDatabaseReason(error) ? unavailable(error) : new ApiError('internal_error');
  if (isApiError(error.cause)) return error.cause;
  if (error.cause instanceof Refusal || error.cause instanceof ZodError || error.cause instanceof GatewayFailure) return translate(error.cause);
  // After the refusals: a gateway's own network failure is not the database's.
  if (unreachableDatabaseReason(error.cause)) return unavailable(error.cause);
  switch (error.code) {
    case 'NOT_FOUND':
      return new ApiError('not_found');
    case 'PARSE_ERROR':
      return new ApiError('invalid_json');
    default:
      return new ApiError('internal_error');
  }
}

/** True when the failure is ours to fix (logged at error level with its stack). */
export const isUnexpected = (error: ApiError): boolean => error.status >= 500 && error.code === 'internal_error';
