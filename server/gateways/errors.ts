/**
 * Errors of the gateway layer. Public messages stay generic: what went wrong
 * in detail goes to `cause` for logs, and never carries credentials or a full
 * tax document.
 */
import type { GatewayName } from '../contract/enums';
import { ApiError, type ValidationIssue } from '../contract/errors';

/** 502 `gateway_error`: timeout, network failure, 5xx, unexpected 4xx, malformed answer. */
export function gatewayError(provider: GatewayName, detail: string, cause?: unknown): ApiError<'gateway_error'> {
  const error = new ApiError('gateway_error', { provider });
  error.cause = cause === undefined ? new Error(`${provider}: ${detail}`) : new Error(`${provider}: ${detail}`, { cause });
  return error;
}

/** 400 `invalid_input` for a gateway's 422-style refusal, already mapped to our request paths. */
export function gatewayValidationError(issues: ValidationIssue[]): ApiError<'invalid_input'> {
  return new ApiError('invalid_input', { issues });
}

export type WebhookRejection = 'missing_signature' | 'invalid_signature' | 'stale_timestamp' | 'malformed_payload';

/**
 * An inbound webhook that must not change anything. Authentication reasons
 * should be answered 401, `malformed_payload` 400.
 */
export class WebhookRejectedError extends Error {
  constructor(
    readonly provider: GatewayName,
    readonly reason: WebhookRejection,
  ) {
    super(`${provider} webhook rejected: ${reason}`);
    this.name = 'WebhookRejectedError';
  }
}

/** Adapter configuration that cannot work; names the bad fields, never their values. */
export class GatewayConfigError extends Error {
  constructor(provider: GatewayName, fields: string[]) {
    super(`${provider} credentials are invalid: check ${fields.join(', ') || 'the credentials object'}`);
    this.name = 'GatewayConfigError';
  }
}

/** The name a sandbox simulator gives the refusal of an action its record's state does not allow (paying a paid payment). */
export const SIMULATOR_REFUSAL = 'SimControlError';

/**
 * A simulator's refusal, told by its name rather than its class: callers such
 * as the operator's simulator actions must not load the simulators' modules,
 * which only the sandbox does.
 */
export const isSimulatorRefusal = (error: unknown): error is Error & { status: number } =>
  error instanceof Error && error.name === SIMULATOR_REFUSAL && typeof (error as { status?: unknown }).status === 'number';
