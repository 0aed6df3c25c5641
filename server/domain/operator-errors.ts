/**
 * How an operator action (the internal API behind the CLI and the dashboard)
 * is refused. The operator API turns these into its own error answers; they
 * never reach /v1.
 */
export type OperatorRefusal = 'not_found' | 'conflict' | 'invalid' | 'unavailable' | 'forbidden';

export class OperatorError extends Error {
  constructor(
    readonly refusal: OperatorRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'OperatorError';
  }
}

export const notFound = (what: string, id: string) => new OperatorError('not_found', `${what} ${id} does not exist.`);
