/**
 * How an operator action (the internal API behind the CLI and the dashboard)
 * is refused. The operator API turns these into its own error answers; they
 * never reach /v1.
 */
/** `unauthorized` and `rate_limited` come from dashboard log-ins (domain/people). */
export type OperatorRefusal = 'not_found' | 'conflict' | 'invalid' | 'unavailable' | 'forbidden' | 'unauthorized' | 'rate_limited';

export class OperatorError extends Error {
  constructor(
    readonly refusal: OperatorRefusal,
    message: string,
    /** For `rate_limited`: seconds before trying again (the Retry-After header). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'OperatorError';
  }
}

export const notFound = (what: string, id: string) => new OperatorError('not_found', `${what} ${id} does not exist.`);
