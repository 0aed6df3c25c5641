/**
 * The internal API's one error edge: what a failed operator call (a
 * procedure over /internal/trpc, or the listen stream) answers, translated
 * once from what it failed with. Its codes are the operator API's own
 * (http/internal-api.ts lists them); a refusal named in the /v1 vocabulary (a test
 * payment refused by billing, a trigger whose gateway is down) reads as the
 * nearest of them, with the same message.
 */
import { TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import { ERROR_CATALOGUE, isErrorCode, UNAVAILABLE_RETRY_AFTER_SECONDS, type ErrorCode, type ValidationIssue } from '../contract/errors';
import { unreachableDatabaseReason } from '../db/unreachable';
import { refusalOf } from '../domain/gateway-calls';
import { Refusal, type OperatorRefusalCode } from '../domain/refusal';
import { GatewayFailure } from '../gateways';
import { issuesFromZod } from '../http/error-translation';

export const OPERATOR_ERRORS = {
  invalid_json: { status: 400, message: 'Request body is not valid JSON.' },
  invalid_input: { status: 400, message: 'Request payload is invalid.' },
  unauthorized: { status: 401, message: 'Missing or wrong admin token.' },
  forbidden: { status: 403, message: 'Your role does not allow this.' },
  second_factor_required: { status: 403, message: 'This organization requires a second factor.' },
  not_found: { status: 404, message: 'Not found.' },
  conflict: { status: 409, message: 'It already exists or clashes with what exists.' },
  unavailable: { status: 412, message: 'It cannot be done now.' },
  rate_limited: { status: 429, message: 'Too many attempts; try again later.' },
  internal_error: { status: 500, message: 'Internal error.' },
  service_unavailable: { status: 503, message: 'The service is temporarily unavailable (its database cannot be reached); try again in a moment.' },
} as const;
export type OperatorErrorCode = keyof typeof OPERATOR_ERRORS;

export interface OperatorAnswer {
  code: OperatorErrorCode;
  message: string;
  issues?: ValidationIssue[];
  /** Seconds, for the Retry-After header of a `rate_limited` or `service_unavailable` answer. */
  retryAfter?: number;
}

export const answer = (code: OperatorErrorCode, message?: string, issues?: ValidationIssue[]): OperatorAnswer => ({
  code,
  message: message ?? OPERATOR_ERRORS[code].message,
  ...(issues ? { issues } : {}),
});

const OPERATOR_CODES: Record<OperatorRefusalCode, OperatorErrorCode> = {
  conflict: 'conflict',
  invalid: 'invalid_input',
  unavailable: 'unavailable',
  forbidden: 'forbidden',
  second_factor_required: 'second_factor_required',
  rate_limited: 'rate_limited',
};

/** A /v1 code's nearest operator code, by what it means to the caller; null for our own failure. */
function nearest(code: ErrorCode): OperatorErrorCode | null {
  if (code === 'internal_error') return null;
  if (code === 'unauthorized' || code === 'not_found' || code === 'invalid_json') return code;
  const status = ERROR_CATALOGUE[code].status;
  if (status === 400) return 'invalid_input';
  if (status === 402 || status === 409) return 'conflict';
  if (status === 429) return 'rate_limited';
  if (code === 'service_unavailable') return 'service_unavailable';
  return 'unavailable'; // 501 not_implemented, 502 gateway_error: not possible now
}

function fromRefusal(refusal: Refusal): OperatorAnswer | null {
  if (!isErrorCode(refusal.code)) {
    const code = OPERATOR_CODES[refusal.code];
    const reply = answer(code, refusal.message, code === 'invalid_input' ? [{ path: [], message: refusal.message }] : undefined);
    const wait = refusal.details.retryAfterSeconds;
    return typeof wait === 'number' && wait > 0 ? { ...reply, retryAfter: wait } : reply;
  }
  const code = nearest(refusal.code);
  if (!code) return null;
  // Its own message: the shared store behind the log-in throttle is not the database.
  if (code === 'service_unavailable') return { ...unavailable(), message: refusal.message };
  const issues = refusal.details.issues as ValidationIssue[] | undefined;
  if (code !== 'invalid_input') return answer(code, refusal.message);
  // The first field problem joins the message, for the dashboard's one-line notice.
  const first = issues?.[0];
  const message = first ? `${refusal.message} ${first.path.join('.') || 'request'}: ${first.message}` : refusal.message;
  return answer(code, message, issues ?? [{ path: [], message }]);
}

/** The database out of reach (decision 24): 503, try again shortly. */
const unavailable = (): OperatorAnswer => ({ ...answer('service_unavailable'), retryAfter: UNAVAILABLE_RETRY_AFTER_SECONDS });

/** What a failed call answers; null when it is ours to fix (an internal_error, logged by the caller). */
export function operatorAnswerOf(error: unknown): OperatorAnswer | null {
  if (error instanceof Refusal) return fromRefusal(error);
  // A gateway's failure is answered as /v1 would word it (domain/gateway-calls.ts), in the operator API's codes.
  if (error instanceof GatewayFailure) return fromRefusal(refusalOf(error));
  if (error instanceof ZodError) return answer('invalid_input', undefined, issuesFromZod(error));
  if (!(error instanceof TRPCError)) return unreachableDatabaseReason(error) ? unavailable() : null;
  if (error.cause instanceof Refusal || error.cause instanceof ZodError || error.cause instanceof GatewayFailure) return operatorAnswerOf(error.cause);
  // After the refusals: a gateway's own network failure is not the database's.
  if (unreachableDatabaseReason(error.cause)) return unavailable();
  switch (error.code) {
    case 'PARSE_ERROR':
      return answer('invalid_json');
    case 'NOT_FOUND':
    case 'METHOD_NOT_SUPPORTED':
      return answer('not_found', 'No such operator procedure for this method.');
    case 'PAYLOAD_TOO_LARGE':
      return answer('invalid_input', undefined, [{ path: [], message: 'request body is too large' }]);
    case 'INTERNAL_SERVER_ERROR':
    case 'NOT_IMPLEMENTED':
    case 'BAD_GATEWAY':
    case 'SERVICE_UNAVAILABLE':
    case 'GATEWAY_TIMEOUT':
      return null;
    default:
      // Any other malformed call (a batch, a query's input that is not an object…): said without tRPC's wording.
      return answer('invalid_input', undefined, [{ path: [], message: 'malformed operator call' }]);
  }
}

const TRPC_CODES: Record<OperatorErrorCode, TRPCError['code']> = {
  invalid_json: 'PARSE_ERROR',
  invalid_input: 'BAD_REQUEST',
  unauthorized: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  second_factor_required: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  conflict: 'CONFLICT',
  unavailable: 'PRECONDITION_FAILED',
  rate_limited: 'TOO_MANY_REQUESTS',
  internal_error: 'INTERNAL_SERVER_ERROR',
  service_unavailable: 'SERVICE_UNAVAILABLE',
};

/**
 * The same answer for in-process callers (the demo seed, a test's caller),
 * who get tRPC errors: the code the answer's code names, its message, and
 * the refusal as the cause (so the HTTP edge above translates it alike).
 */
export function asTrpcError(error: TRPCError): TRPCError {
  const reply = operatorAnswerOf(error.cause);
  return reply ? new TRPCError({ code: TRPC_CODES[reply.code], message: reply.message, cause: error.cause }) : error;
}

export function operatorErrorBody(reply: OperatorAnswer): string {
  const body: Record<string, unknown> = { error: reply.code, message: reply.message };
  if (reply.issues) body.issues = reply.issues;
  return JSON.stringify(body);
}
