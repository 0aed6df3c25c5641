import { createTRPCClient, httpLink } from '@trpc/client';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_TOKEN_FILE, DEFAULT_DATA_DIR } from '../server/contract/local-admin-token';
import type { OperatorRouter } from '../server/operator/router';
import { CliError } from './errors';

/**
 * The admin token: --token, else PAYMENTS_ADMIN_TOKEN, else the embedded
 * service's `$DATA_DIR/admin-token` (./data by default). An empty variable
 * counts as unset, as a shell's `VAR=` means.
 */
export function findAdminToken(given: string | undefined, env: NodeJS.ProcessEnv): string {
  const dataDir = env.DATA_DIR || DEFAULT_DATA_DIR;
  const token = given || env.PAYMENTS_ADMIN_TOKEN || localToken(dataDir);
  if (!token) {
    // A merchant's developer with only a sandbox key, running an operator command: say what the key is for.
    const keyNote = env.PAYMENTS_API_KEY ? ' An API key (PAYMENTS_API_KEY) works for webhook listen and trigger only.' : '';
    throw new CliError('unauthorized', `no admin token: pass --token, set PAYMENTS_ADMIN_TOKEN, or set DATA_DIR to the service's data folder (${dataDir}/admin-token not found).${keyNote}`);
  }
  return token;
}

function localToken(dataDir: string): string | null {
  try {
    return readFileSync(join(dataDir, ADMIN_TOKEN_FILE), 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/** A service that accepts the connection but never answers must not hang a script forever. */
const DEFAULT_TIMEOUT_MS = 30_000;

/** The tRPC code the CLI classifies each operator error code by (cli/errors.ts). */
const TRPC_CODES: Record<string, [number, string]> = {
  invalid_json: [-32700, 'PARSE_ERROR'],
  invalid_input: [-32600, 'BAD_REQUEST'],
  unauthorized: [-32001, 'UNAUTHORIZED'],
  forbidden: [-32003, 'FORBIDDEN'],
  rate_limited: [-32029, 'TOO_MANY_REQUESTS'],
  not_found: [-32004, 'NOT_FOUND'],
  conflict: [-32009, 'CONFLICT'],
  unavailable: [-32012, 'PRECONDITION_FAILED'],
  internal_error: [-32603, 'INTERNAL_SERVER_ERROR'],
};

/**
 * The operator API answers errors as `{"error": "<code>", "message", "issues"?}`;
 * the tRPC client only understands its own envelope, so error answers are
 * re-read into it here (field problems as the JSON list of issues the CLI prints line by line).
 */
async function readableErrors(response: Response): Promise<Response> {
  // The service's port answers 503 (Retry-After) while the service is still starting (runtime/startup.ts).
  if (response.status === 503 && response.headers.get('retry-after') && !(response.headers.get('content-type') ?? '').includes('application/json')) {
    const envelope = { error: { code: -32012, message: 'The service is starting; try again in a moment.', data: { code: 'PRECONDITION_FAILED', httpStatus: 503 } } };
    return new Response(JSON.stringify(envelope), { status: 503, headers: { 'content-type': 'application/json' } });
  }
  if (response.ok || !(response.headers.get('content-type') ?? '').includes('application/json')) return response;
  const body = (await response.clone().json().catch(() => null)) as { error?: unknown; message?: unknown; issues?: { path: unknown[] }[] } | null;
  if (!body || typeof body.error !== 'string' || !TRPC_CODES[body.error]) return response;
  const [code, name] = TRPC_CODES[body.error]!;
  const fieldIssues = Array.isArray(body.issues) && body.issues.some((issue) => Array.isArray(issue.path) && issue.path.length > 0);
  const message = fieldIssues ? JSON.stringify(body.issues) : String(body.message ?? body.error);
  const envelope = { error: { code, message, data: { code: name, httpStatus: response.status } } };
  return new Response(JSON.stringify(envelope), { status: response.status, headers: { 'content-type': 'application/json' } });
}

/** A typed client of the internal operator API of a running service. */
export function operatorClient(baseUrl: string, token: string, timeoutMs = DEFAULT_TIMEOUT_MS) {
  return createTRPCClient<OperatorRouter>({
    links: [
      httpLink({
        url: `${baseUrl.replace(/\/$/, '')}/internal/trpc`,
        headers: { authorization: `Bearer ${token}` },
        fetch: async (input, init) => readableErrors(await fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs) })),
      }),
    ],
  });
}
export type OperatorClient = ReturnType<typeof operatorClient>;
