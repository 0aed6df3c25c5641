/**
 * Who is logged in: `auth.session` (null without a session), kept in the
 * query cache. The CSRF token of the session is handed to the client here,
 * and a 401 from any call drops the cached session so the login page shows.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, useEffect, type ReactNode } from 'react';
import { api, onUnauthorized, setCsrfToken, type Outputs } from './client';

export type Session = NonNullable<Outputs['auth']['session']>;
export type Role = 'owner' | 'developer' | 'viewer';
/** What an action needs in the organization it touches (the server's access.ts says the same). */
export type Need = 'read' | 'develop' | 'own';

export const SESSION_KEY = ['auth', 'session'] as const;

const SessionContext = createContext<Session | null>(null);

/** Who is logged in; main.tsx asks as soon as the script runs, the app reads the answer from the cache. */
export const sessionQuery = {
  queryKey: SESSION_KEY,
  queryFn: async () => {
    const session = await api.auth.session.query();
    setCsrfToken(session?.csrfToken ?? null);
    return session;
  },
  staleTime: 60_000,
};

export function useSessionQuery() {
  const queryClient = useQueryClient();
  useEffect(
    () =>
      onUnauthorized(() => {
        setCsrfToken(null);
        queryClient.setQueryData(SESSION_KEY, null);
      }),
    [queryClient],
  );
  return useQuery(sessionQuery);
}

/**
 * Makes `session` (what `auth.login` / `auth.acceptInvitation` answered, or
 * null after logging out) the current one, and forgets everything read as
 * someone else. The session query itself is kept: the app is subscribed to it.
 */
export function useSwitchSession() {
  const queryClient = useQueryClient();
  return (session: Session | null) => {
    setCsrfToken(session?.csrfToken ?? null);
    queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_KEY[0] || query.queryKey[1] !== SESSION_KEY[1] });
    queryClient.setQueryData(SESSION_KEY, session);
  };
}

export function SessionProvider({ session, children }: { session: Session; children: ReactNode }) {
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a logged-in page');
  return session;
}

const RANK: Record<Role, number> = { viewer: 0, developer: 1, owner: 2 };
const NEEDED: Record<Need, Role> = { read: 'viewer', develop: 'developer', own: 'owner' };

export function roleIn(session: Session, organizationId: string | undefined): Role | 'operator' | null {
  if (session.user.platformOperator) return 'operator';
  return (session.memberships.find((m) => m.organizationId === organizationId)?.role as Role | undefined) ?? null;
}

/** Whether the buttons of an action show; the server checks again on every call. */
export function useCan(organizationId: string | undefined, need: Need): boolean {
  const role = roleIn(useSession(), organizationId);
  if (role === 'operator') return true;
  return role !== null && RANK[role] >= RANK[NEEDED[need]];
}
