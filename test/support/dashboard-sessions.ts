/**
 * Dashboard users over HTTP, for the dashboard's tests: create a user (as the
 * operator, in-process), log in with fetch, and call internal procedures with
 * the session cookie and CSRF token as the browser does.
 */
import type { TestService } from './service';

export interface Browser {
  cookie: string;
  csrfToken: string;
  userId: string;
  /** Calls a procedure as this logged-in user; queries go as GET, mutations as POST. */
  call(procedure: string, input?: unknown, options?: { mutation?: boolean; headers?: Record<string, string> }): Promise<Reply>;
}

export interface Reply {
  status: number;
  body: any;
  headers: Headers;
}

export const PASSWORD = 'correct horse battery staple';

let counter = 0;
export const uniqueEmail = (label: string) => `${label}-${process.pid}-${++counter}-${Date.now()}@example.com`;

/** A raw call of /internal/trpc: `query` (GET with ?input=) or mutation (POST). */
export async function internalCall(
  service: TestService,
  procedure: string,
  input: unknown,
  options: { mutation: boolean; headers?: Record<string, string> },
): Promise<Reply> {
  const url = new URL(`${service.url}/internal/trpc/${procedure}`);
  let init: RequestInit;
  if (options.mutation) {
    init = { method: 'POST', headers: { 'content-type': 'application/json', ...options.headers }, body: JSON.stringify(input ?? {}) };
  } else {
    if (input !== undefined) url.searchParams.set('input', JSON.stringify(input));
    init = { method: 'GET', headers: options.headers };
  }
  const response = await fetch(url, init);
  const text = await response.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: response.status, body, headers: response.headers };
}

/** The procedure's type from the router itself, so a call never guesses GET or POST. */
export async function isMutation(procedure: string): Promise<boolean> {
  const { operatorRouter } = await import('../../server/operator/router');
  const found = (operatorRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>)[procedure];
  if (!found) throw new Error(`no procedure ${procedure}`);
  return found._def.type === 'mutation';
}

export async function login(service: TestService, email: string, password = PASSWORD): Promise<Browser> {
  const reply = await internalCall(service, 'auth.login', { email, password }, { mutation: true });
  if (reply.status !== 200) throw new Error(`login failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  const setCookie = reply.headers.get('set-cookie') ?? '';
  const cookie = setCookie.split(';')[0]!;
  const session = reply.body.result.data;
  return browserFor(service, cookie, session.csrfToken, session.user.id);
}

export function browserFor(service: TestService, cookie: string, csrfToken: string, userId: string): Browser {
  return {
    cookie,
    csrfToken,
    userId,
    async call(procedure, input, options = {}) {
      const mutation = options.mutation ?? (await isMutation(procedure));
      return internalCall(service, procedure, input, { mutation, headers: { cookie, 'x-csrf-token': csrfToken, ...options.headers } });
    },
  };
}

/** A user with a role in an organization (created by the operator in-process), logged in. */
export async function member(service: TestService, organizationId: string | null, role: 'owner' | 'developer' | 'viewer', options: { platformOperator?: boolean } = {}): Promise<Browser> {
  const email = uniqueEmail(role);
  await service.admin.users.create({ email, password: PASSWORD, platformOperator: options.platformOperator ?? false });
  if (organizationId) await service.admin.members.add({ organizationId, email, role });
  return login(service, email);
}
