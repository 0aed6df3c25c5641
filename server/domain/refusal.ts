/**
 * The one way the domain says no. A refusal is named in the contract's
 * vocabulary (the /v1 codes of contract/errors.ts, with their extra fields)
 * or, for what only an operator's action meets, in the operator API's
 * (conflict, invalid, unavailable, forbidden, rate_limited). It carries no
 * HTTP status and no body: each edge translates it once, /v1 in
 * http/error-translation.ts, the internal API and its listen stream in
 * operator/operator-answers.ts.
 */
import { ERROR_CATALOGUE, isErrorCode, type ErrorCode, type ExtraFields } from '../contract/errors';

interface OperatorDetails {
  conflict: object;
  invalid: object;
  unavailable: object;
  forbidden: object;
  /** An organization that requires a second factor, and a session that has not proven one. */
  second_factor_required: object;
  /** Seconds before trying again (the Retry-After header). */
  rate_limited: { retryAfterSeconds: number };
}

export type OperatorRefusalCode = keyof OperatorDetails;
export type RefusalCode = ErrorCode | OperatorRefusalCode;

type Details<C extends RefusalCode> = C extends ErrorCode ? ExtraFields[C] : C extends OperatorRefusalCode ? OperatorDetails[C] : never;
type ArgsFor<C extends RefusalCode> = keyof Details<C> extends never
  ? [details?: Record<string, never>, message?: string]
  : [details: Details<C>, message?: string];

export class Refusal<C extends RefusalCode = RefusalCode> extends Error {
  readonly details: Readonly<Record<string, unknown>>;

  constructor(readonly code: C, ...[details, message]: ArgsFor<C>) {
    super(message ?? (isErrorCode(code) ? ERROR_CATALOGUE[code].message : code));
    this.name = 'Refusal';
    this.details = { ...(details ?? {}) };
  }
}

export const isRefusal = (value: unknown): value is Refusal => value instanceof Refusal;

/**
 * A refusal addressed to an operator (the internal API, the dashboard, the
 * CLI): its message is written for them, and its code is the operator API's
 * (not_found and unauthorized are shared with /v1). Those the /v1 use cases
 * raise are written `new Refusal(code, …)` and declared (domain/raises.ts).
 */
export function operatorRefusal(code: OperatorRefusalCode | 'not_found' | 'unauthorized', message: string, retryAfterSeconds?: number): Refusal {
  return new Refusal(code as OperatorRefusalCode, (retryAfterSeconds ? { retryAfterSeconds } : {}) as never, message);
}

export const notFound = (what: string, id: string) => operatorRefusal('not_found', `${what} ${id} does not exist.`);
