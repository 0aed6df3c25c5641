/**
 * Someone whose every organization requires a second factor this session has
 * not proven sees none of their pages (the service refuses the data with
 * `second_factor_required`): they are led to the Security page instead.
 */
import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { useSession } from '../api/session';

export function SecondFactorGate({ children }: { children: ReactNode }) {
  const session = useSession();
  const { pathname } = useLocation();
  const missing = session.secondFactor.missingFor;
  const locked = !session.user.platformOperator && missing.length > 0 && session.memberships.every((m) => missing.includes(m.organizationId));
  if (locked && !pathname.startsWith('/account/') && pathname !== '/invitation' && pathname !== '/reset-password') return <Navigate to="/account/security" replace />;
  return <>{children}</>;
}
