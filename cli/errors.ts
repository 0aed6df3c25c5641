/**
 * How the CLI fails: one message on stderr with a stable code, and an exit
 * status per kind of failure, so scripts can tell "nothing there" from "the
 * service is down" without reading the text.
 */
import { TRPCClientError } from '@trpc/client';
import { CommanderError } from 'commander';

export type CliErrorCode = 'usage' | 'invalid' | 'not_found' | 'unauthorized' | 'unreachable' | 'not_this_service' | 'conflict' | 'unavailable' | 'error';

/** Exit status of each error code; 0 is success. Documented in the README and in `--help`. */
export const EXIT_CODES: Record<CliErrorCode, number> = {
  error: 1,
  unavailable: 1,
  usage: 2,
  invalid: 2,
  not_found: 3,
  unauthorized: 4,
  unreachable: 5,
  not_this_service: 5,
  conflict: 6,
};

export const EXIT_CODE_HELP = `
Exit status (with --json, stderr carries {"error": "<code>", "message": "…"}):
  0  done
  1  error, unavailable       the service failed or cannot do it now
  2  usage, invalid           bad arguments, or input the service refused
  3  not_found                an id that does not exist
  4  unauthorized             missing or wrong admin token, or API key refused
  5  unreachable,             nothing answers at --url (is the service running?),
     not_this_service         or what answers is not this service
  6  conflict                 it already exists or clashes with what exists`;

export class CliError extends Error {
  constructor(
    readonly code: CliErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

const SERVER_CODES: Record<string, CliErrorCode> = {
  NOT_FOUND: 'not_found',
  CONFLICT: 'conflict',
  BAD_REQUEST: 'invalid',
  UNAUTHORIZED: 'unauthorized',
  FORBIDDEN: 'unauthorized',
  PRECONDITION_FAILED: 'unavailable',
  // Too many requests (an API key's rate limit): cannot be done now, later it can.
  TOO_MANY_REQUESTS: 'unavailable',
};

/** The first network error code (ECONNREFUSED, ENOTFOUND…) in a chain of causes. */
function networkCode(error: unknown, depth = 0): string | undefined {
  if (!error || typeof error !== 'object' || depth > 6) return undefined;
  const { code, cause, errors, name } = error as { code?: unknown; cause?: unknown; errors?: unknown[]; name?: unknown };
  if (typeof code === 'string' && /^(E[A-Z]+|UND_ERR_[A-Z_]+)$/.test(code)) return code;
  if (name === 'TimeoutError') return 'timeout';
  for (const inner of [cause, ...(Array.isArray(errors) ? errors : [])]) {
    const found = networkCode(inner, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** Input refusals arrive as a JSON list of Zod issues; show them as `field: problem` lines. */
function readableMessage(message: string): string {
  try {
    const issues = JSON.parse(message) as { path: (string | number)[]; message: string }[];
    if (Array.isArray(issues)) return issues.map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`).join('\n');
  } catch {
    // not a list of issues: the message as it is
  }
  return message;
}

const WHERE = '--url/PAYMENTS_URL';

/** What to do about a missing or refused admin token. */
export const TOKEN_HINT = "Pass --token, set PAYMENTS_ADMIN_TOKEN, or set DATA_DIR to the service's data folder.";

/** Nothing answers at the service's address. */
export const unreachable = (url: string, reason: string): CliError =>
  new CliError('unreachable', `cannot reach the service at ${url} (${reason}); is it running? Point ${WHERE} at it.`);

/** Something answers, but not with the operator API's answers (another program on that port, a proxy's error page). */
export const notThisService = (url: string): CliError =>
  new CliError('not_this_service', `what answers at ${url} does not look like this service (no operator API at ${url.replace(/\/$/, '')}/internal/trpc); check ${WHERE}.`);

/** Any failure of a command, as the CLI reports it. */
export function classify(error: unknown, url: string): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof CommanderError) return new CliError('usage', error.message.replace(/^error: /, ''));
  if (error instanceof TRPCClientError) {
    const serverCode = (error.data as { code?: string } | undefined)?.code;
    if (serverCode === 'UNAUTHORIZED') return new CliError('unauthorized', `${error.message} ${TOKEN_HINT}`);
    if (serverCode) return new CliError(SERVER_CODES[serverCode] ?? 'error', readableMessage(error.message));
    const network = networkCode(error.cause) ?? (error.message === 'fetch failed' ? 'network error' : undefined);
    if (network) return unreachable(url, network === 'timeout' ? 'no answer in time' : network);
    return notThisService(url);
  }
  if (error instanceof Error) return new CliError('error', readableMessage(error.message));
  return new CliError('error', String(error));
}
