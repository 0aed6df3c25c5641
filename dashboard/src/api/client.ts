/**
 * The one way the dashboard talks to the service: the internal tRPC router
 * at /internal/trpc (the same procedures as the operator CLI), typed end to
 * end from the server's router. No batching (the server refuses batches),
 * the session cookie travels same-origin, and every call carries the
 * session's CSRF token.
 *
 * The server answers errors in the contract's shape `{"error","message","issues"?}`
 * rather than tRPC's envelope: they are read here into an ApiFailure, which
 * tRPC's client keeps as the `cause` of the error it throws (see errors.ts).
 */
import { createTRPCClient, httpLink } from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { OperatorRouter } from '../../../server/operator/router';
import { ApiFailure, type ApiIssue } from './failure';

export { ApiFailure, type ApiIssue };
export type Inputs = inferRouterInputs<OperatorRouter>;
export type Outputs = inferRouterOutputs<OperatorRouter>;

let csrfToken: string | null = null;
/** Set from the login answer and `auth.session`; cleared at logout. */
export const setCsrfToken = (token: string | null) => {
  csrfToken = token;
};

const listeners = new Set<() => void>();
/** Called when the service says the session is gone (401): the app goes back to the login page. */
export const onUnauthorized = (listener: () => void) => {
  listeners.add(listener);
  return () => void listeners.delete(listener);
};

async function apiFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const headers = new Headers(init?.headers);
  if (csrfToken) headers.set('x-csrf-token', csrfToken);
  let response: Response;
  try {
    response = await fetch(input, { ...init, headers, credentials: 'same-origin' });
  } catch {
    throw new ApiFailure(0, 'network', 'The service could not be reached. Check your connection and try again.');
  }
  if (response.ok) return response;
  let body: { error?: unknown; message?: unknown; issues?: unknown } = {};
  try {
    body = await response.json();
  } catch {
    // Not the contract's shape (a proxy's error page): said by status below.
  }
  const code = typeof body.error === 'string' ? body.error : `http_${response.status}`;
  const message = typeof body.message === 'string' ? body.message : `The service answered ${response.status} ${response.statusText}.`;
  const issues = Array.isArray(body.issues) ? (body.issues as ApiIssue[]) : [];
  if (response.status === 401) for (const listener of listeners) listener();
  throw new ApiFailure(response.status, code, message, issues);
}

export const api = createTRPCClient<OperatorRouter>({
  links: [httpLink({ url: '/internal/trpc', fetch: apiFetch })],
});
