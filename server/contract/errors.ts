/**
 * The one error catalogue of the public contract.
 * Every error /v1 answers with is an ApiError built here, at the HTTP edge
 * (the domain refuses with domain/refusal.ts, the edge translates); it is
 * written as exactly `{ error, message?, ...extra }`.
 */
import type { GatewayName, PaymentMethod } from './enums';

export interface ValidationIssue {
  path: (string | number)[];
  message: string;
}

/** Extra fields each code may carry (the OpenAPI document lists them per code). */
export interface ExtraFields {
  invalid_json: object;
  invalid_input: { issues: ValidationIssue[] };
  invalid_id: object;
  missing_query: object;
  cannot_cancel_pix: object;
  unauthorized: object;
  billing_inactive: object;
  billing_past_due: object;
  billing_incomplete: object;
  billing_canceled: object;
  billing_expired: object;
  billing_monthly_tx_limit_reached: { limit: number; used: number };
  not_found: object;
  cannot_cancel_paid: object;
  already_canceled: { status: string };
  cannot_cancel_status: { status: string };
  cannot_refund_status: { status: string };
  /** Decision 27: the payment the refund of this externalId belongs to. */
  external_id_conflict: { paymentId: string };
  missing_gateway_ref: object;
  no_routing_rule: object;
  provider_not_configured: { provider: GatewayName };
  provider_disabled: { provider: GatewayName };
  method_not_supported: { provider: GatewayName; method: PaymentMethod };
  action_not_implemented: { action: string; provider: GatewayName };
  rate_limit_exceeded: object;
  internal_error: object;
  not_implemented: { action: string; provider: GatewayName };
  gateway_error: { provider: GatewayName };
  service_unavailable: object;
}

export type ErrorCode = keyof ExtraFields;

/** HTTP status, default message and the extra field names of every code. */
export const ERROR_CATALOGUE: Record<ErrorCode, { status: number; message: string; extra: readonly string[] }> = {
  invalid_json: { status: 400, message: 'Request body is not valid JSON.', extra: [] },
  invalid_input: { status: 400, message: 'Request payload is invalid.', extra: ['issues'] },
  invalid_id: { status: 400, message: 'The id in the path is empty or malformed.', extra: [] },
  missing_query: { status: 400, message: 'A required query parameter is missing.', extra: [] },
  cannot_cancel_pix: { status: 400, message: 'Pix payments cannot be canceled; they expire by themselves.', extra: [] },
  unauthorized: { status: 401, message: 'Missing, malformed, unknown or revoked API key.', extra: [] },
  billing_inactive: { status: 402, message: 'The organization has no active platform subscription.', extra: [] },
  billing_past_due: { status: 402, message: 'The platform subscription is overdue.', extra: [] },
  billing_incomplete: { status: 402, message: 'The platform subscription was started but not confirmed.', extra: [] },
  billing_canceled: { status: 402, message: 'The platform subscription was canceled.', extra: [] },
  billing_expired: { status: 402, message: 'The platform subscription expired.', extra: [] },
  billing_monthly_tx_limit_reached: {
    status: 402,
    message: 'The monthly transaction quota of the plan is reached.',
    extra: ['limit', 'used'],
  },
  not_found: { status: 404, message: 'Resource not found.', extra: [] },
  cannot_cancel_paid: { status: 409, message: 'The payment is already paid; cancel is not a refund.', extra: [] },
  already_canceled: { status: 409, message: 'The resource is already in a final state.', extra: ['status'] },
  cannot_cancel_status: { status: 409, message: 'The current status does not allow cancel.', extra: ['status'] },
  cannot_refund_status: { status: 409, message: 'Only a paid payment can be refunded.', extra: ['status'] },
  external_id_conflict: { status: 409, message: 'This externalId belongs to a refund of another payment (paymentId).', extra: ['paymentId'] },
  missing_gateway_ref: { status: 409, message: 'There is no gateway reference to act on.', extra: [] },
  no_routing_rule: { status: 409, message: 'No gateway is configured for this method in the environment.', extra: [] },
  provider_not_configured: {
    status: 409,
    message: 'The routed gateway has no credentials in this environment.',
    extra: ['provider'],
  },
  provider_disabled: { status: 409, message: 'The routed gateway is disabled.', extra: ['provider'] },
  method_not_supported: {
    status: 409,
    message: 'The routed gateway does not support this method.',
    extra: ['provider', 'method'],
  },
  action_not_implemented: {
    status: 409,
    message: 'The gateway does not support this subscription action.',
    extra: ['action', 'provider'],
  },
  rate_limit_exceeded: { status: 429, message: 'Rate limit exceeded; wait for Retry-After seconds.', extra: [] },
  internal_error: { status: 500, message: 'Internal error.', extra: [] },
  not_implemented: { status: 501, message: 'The gateway adapter does not support this action.', extra: ['action', 'provider'] },
  gateway_error: { status: 502, message: 'The gateway failed or timed out; retrying is safe.', extra: ['provider'] },
  service_unavailable: {
    status: 503,
    message: 'The service cannot reach its database right now; retry after Retry-After seconds (a create with the same externalId).',
    extra: [],
  },
};

/**
 * The `Retry-After` (seconds) of a 503 `service_unavailable`: the service
 * reconnects on the next request once its database answers again, so a
 * short wait is enough; clients add their own jitter.
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

type ArgsFor<C extends ErrorCode> = keyof ExtraFields[C] extends never
  ? [extra?: Record<string, never>, message?: string]
  : [extra: ExtraFields[C], message?: string];

export class ApiError<C extends ErrorCode = ErrorCode> extends Error {
  readonly status: number;
  readonly extra: Record<string, unknown>;

  constructor(readonly code: C, ...[extra, message]: ArgsFor<C>) {
    super(message ?? ERROR_CATALOGUE[code].message);
    this.name = 'ApiError';
    this.status = ERROR_CATALOGUE[code].status;
    this.extra = { ...(extra ?? {}) };
  }

  /** The response body: the code, the message, and only the extra fields named for that code. */
  toBody(): Record<string, unknown> {
    const body: Record<string, unknown> = { error: this.code, message: this.message };
    for (const field of ERROR_CATALOGUE[this.code].extra) {
      if (this.extra[field] !== undefined) body[field] = this.extra[field];
    }
    return body;
  }
}

export const isApiError = (value: unknown): value is ApiError =>
  value instanceof ApiError;

export const isErrorCode = (value: string): value is ErrorCode => Object.hasOwn(ERROR_CATALOGUE, value);
