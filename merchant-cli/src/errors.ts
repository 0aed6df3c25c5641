/**
 * How `payments` fails: the service's refusal as the contract words it (the
 * error body's `error` code and `message`), on stderr, and an exit status per
 * kind of failure, so a script tells "nothing there" from "the service is
 * down" without reading the text. With --json, stderr carries the body
 * itself: `{"error": "<code>", "message": "…"}`.
 */
import { PaymentsApiError, PaymentsConnectionError } from '@service-payments/sdk';

export class MerchantCliError extends Error {
  constructor(
    /** The contract's error code (`not_found`, `invalid_input`, …), or the CLI's own (`usage`, `unreachable`). */
    readonly code: string,
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'MerchantCliError';
  }
}

export const EXIT_CODE_HELP = `
Exit status (stderr carries the service's error code and message; with --json,
as the contract's body {"error": "<code>", "message": "…"}):
  0  done
  1  the service failed or cannot do it now (5xx, rate_limit_exceeded)
  2  usage, or input the service refused (400, 422)
  3  not_found (an id that does not exist, or is not this key's)
  4  unauthorized or forbidden (no key, a revoked key, a production key in the sandbox's tools)
  5  unreachable: nothing answers at --url (is the service running?)
  6  conflict (409)`;

/** The exit status of an HTTP refusal, by its status band. */
export function exitCodeOf(status: number): number {
  if (status === 404) return 3;
  if (status === 401 || status === 403) return 4;
  if (status === 409) return 6;
  if (status >= 400 && status < 500 && status !== 429) return 2;
  return 1;
}

export const unreachable = (baseUrl: string, reason: string): MerchantCliError =>
  new MerchantCliError('unreachable', `cannot reach the service at ${baseUrl} (${reason}); is it running? Point --url/PAYMENTS_URL or \`payments login --url\` at it.`, 5);

/** Any failure of a command, as `payments` reports it. */
export function classify(error: unknown, baseUrl: string): MerchantCliError {
  if (error instanceof MerchantCliError) return error;
  if (error instanceof PaymentsApiError) return new MerchantCliError(error.code, error.message, exitCodeOf(error.status));
  if (error instanceof PaymentsConnectionError) return unreachable(baseUrl, error.message);
  if (error instanceof TypeError && error.message.startsWith('PaymentsClient:')) return new MerchantCliError('usage', error.message, 2);
  return new MerchantCliError('error', error instanceof Error ? error.message : String(error), 1);
}

/** Reads a refusal of the service's sandbox tools (the operator API answers in the contract's shape too). */
export async function refusalOf(response: Response): Promise<MerchantCliError> {
  const body = (await response.json().catch(() => null)) as { error?: unknown; message?: unknown } | null;
  if (typeof body?.error !== 'string') return new MerchantCliError('unexpected_response', `the service answered HTTP ${response.status} without a contract error body`, 1);
  return new MerchantCliError(body.error, typeof body.message === 'string' ? body.message : body.error, exitCodeOf(response.status));
}
