/**
 * What a failed call throws. `PaymentsApiError` is an answer of the service
 * with its stable `code` (branch on it, never on `message`); the connection
 * errors mean no answer arrived at all.
 */
import { ERROR_CODES, type ErrorCode, type ErrorResponse, type ValidationIssue } from './generated/contract.js';
import type { ResponseMetadata } from './response.js';
import type { GatewayName, PaymentMethod } from './types.js';

/** Base of every error the SDK throws, so one `instanceof` catches them all. */
export class PaymentsError extends Error {
  override name = 'PaymentsError';
}

/**
 * A code the contract names, or one added later to /v1 (compatible changes
 * may add more specific codes), or `unexpected_response` when the
 * answer was not a contract error body (for example a proxy's HTML page).
 */
export type PaymentsErrorCode = ErrorCode | 'unexpected_response' | (string & {});

export interface PaymentsApiErrorInit {
  status: number;
  body: unknown;
  requestId?: string | undefined;
  retryAfter?: number | undefined;
  response?: ResponseMetadata | undefined;
}

export class PaymentsApiError extends PaymentsError {
  override name = 'PaymentsApiError';
  /** HTTP status of the answer. */
  readonly status: number;
  /** The body's `error`: the stable code to branch on. */
  readonly code: PaymentsErrorCode;
  /** `invalid_input`: which fields are wrong and why. */
  readonly issues: ValidationIssue[] | undefined;
  /** Gateway-related codes: the gateway concerned. */
  readonly provider: GatewayName | undefined;
  /** `method_not_supported`: the method the gateway lacks. */
  readonly method: PaymentMethod | undefined;
  /** `not_implemented`, `action_not_implemented`: the action the gateway lacks. */
  readonly action: string | undefined;
  /** Cancel and refund conflicts (`already_canceled`, `cannot_cancel_status`, `cannot_refund_status`): the resource's current status (the body's `status`). */
  readonly resourceStatus: string | undefined;
  /** `external_id_conflict`: the payment whose refund already has that externalId (reuse it there, or choose another). */
  readonly paymentId: string | undefined;
  /** `billing_monthly_tx_limit_reached`: the monthly quota and what was used of it. */
  readonly limit: number | undefined;
  readonly used: number | undefined;
  /** `X-Request-Id` of the answer: quote it when asking for support. */
  readonly requestId: string | undefined;
  /** Seconds to wait before retrying (`Retry-After`), when the service said so. */
  readonly retryAfter: number | undefined;
  /** The parsed body as received. */
  readonly body: unknown;
  /** Status, headers, rate limit and request id of the answer (absent only on an error built by hand). */
  readonly response: ResponseMetadata | undefined;

  constructor(init: PaymentsApiErrorInit) {
    const body = isErrorBody(init.body) ? init.body : undefined;
    const code = body?.error ?? 'unexpected_response';
    super(body?.message ?? `The payments service answered HTTP ${init.status}${body ? ` (${code})` : ' without a contract error body'}.`);
    this.status = init.status;
    this.code = code;
    this.issues = body?.issues;
    this.provider = body?.provider;
    this.method = body?.method;
    this.action = body?.action;
    this.resourceStatus = body?.status;
    this.paymentId = body?.paymentId;
    this.limit = body?.limit;
    this.used = body?.used;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.body = init.body;
    this.response = init.response;
  }
}

export interface PaymentsConnectionErrorOptions {
  cause?: unknown;
  /** The `X-Request-Id` the request was sent with. */
  requestId?: string | undefined;
  attempts?: number | undefined;
}

/** The request never got an answer: DNS, refused or reset connection, TLS… (after the retries). */
export class PaymentsConnectionError extends PaymentsError {
  override name = 'PaymentsConnectionError';
  /**
   * The `X-Request-Id` the request was sent with: if it reached the service
   * before the connection failed, its log line carries this id.
   */
  readonly requestId: string | undefined;
  /** Attempts made, retries included. */
  readonly attempts: number | undefined;
  constructor(message: string, options: PaymentsConnectionErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.requestId = options.requestId;
    this.attempts = options.attempts;
  }
}

/** No answer within `timeoutMs` (after the retries). */
export class PaymentsTimeoutError extends PaymentsConnectionError {
  override name = 'PaymentsTimeoutError';
  readonly timeoutMs: number;
  constructor(timeoutMs: number, options?: PaymentsConnectionErrorOptions) {
    super(`No answer from the payments service within ${timeoutMs} ms.`, options);
    this.timeoutMs = timeoutMs;
  }
}

function isErrorBody(value: unknown): value is Omit<ErrorResponse, 'error'> & { error: string } {
  return typeof value === 'object' && value !== null && typeof (value as { error?: unknown }).error === 'string';
}

/** True when `code` is one of the contract's codes (as opposed to one this SDK version does not know). */
export const isKnownErrorCode = (code: string): code is ErrorCode => (ERROR_CODES as readonly string[]).includes(code);

/**
 * True for a `PaymentsApiError`, optionally only for the given codes; narrows
 * `code` so a `switch` over it is checked by the compiler.
 *
 *     if (isPaymentsApiError(error, 'invalid_input')) console.log(error.issues);
 */
export function isPaymentsApiError<Code extends ErrorCode>(error: unknown, ...codes: Code[]): error is PaymentsApiError & { code: Code } {
  return error instanceof PaymentsApiError && (codes.length === 0 || (codes as string[]).includes(error.code));
}

/** True when no answer arrived (network failure or timeout). */
export const isPaymentsConnectionError = (error: unknown): error is PaymentsConnectionError => error instanceof PaymentsConnectionError;

/** `invalid_input`: the payload breaks the contract; fix it, never retry it. */
export const isInvalidInputError = (error: unknown): error is PaymentsApiError & { code: 'invalid_input'; issues: ValidationIssue[] } =>
  isPaymentsApiError(error, 'invalid_input');

/** 402, the platform-billing family: resolve billing before trying again. */
export const isBillingError = (error: unknown): error is PaymentsApiError =>
  error instanceof PaymentsApiError && error.status === 402;

/** 409 routing problems: the environment's gateway configuration needs fixing. */
export const isRoutingError = (
  error: unknown,
): error is PaymentsApiError & { code: 'no_routing_rule' | 'provider_not_configured' | 'provider_disabled' | 'method_not_supported' } =>
  isPaymentsApiError(error, 'no_routing_rule', 'provider_not_configured', 'provider_disabled', 'method_not_supported');
