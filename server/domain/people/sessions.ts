/**
 * Dashboard sessions. The cookie carries 32 random bytes; the database only
 * their SHA-256, looked up by a unique index. A session ends when revoked
 * (log-out, by its user, a password change, a disabled user), after 12 hours
 * without use, or 7 days after it began, whichever comes first.
 *
 * The CSRF token is an HMAC of the cookie's token: the browser's script gets
 * it from the log-in answer and sends it in a header; the server recomputes
 * it from the cookie. Nothing that grants access is stored in plaintext.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { MemberRole } from '../../contract/people';
import { DashboardSession, Membership, type User } from '../../db/entities';
import type { EntityManager } from '../../db/orm';
import { operatorRefusal } from '../refusal';

export const SESSION_IDLE_MS = 12 * 3600_000;
export const SESSION_ABSOLUTE_MS = 7 * 24 * 3600_000;
/** Writing the last-seen time on every call would turn reads into writes; once a minute is precise enough. */
const LAST_SEEN_PRECISION_MS = 60_000;
const USER_AGENT_MAX = 255;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
export const hashSessionToken = sha256;

export const csrfTokenFor = (sessionToken: string): string => createHmac('sha256', sessionToken).update('dashboard-csrf-v1').digest('base64url');

/** Constant-time whatever the lengths: both sides are hashed to fixed-length digests first. */
export function csrfMatches(sessionToken: string, presented: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(csrfTokenFor(sessionToken)), digest(presented));
}

export async function openSession(em: EntityManager, user: User, userAgent: string | null, now: Date): Promise<{ token: string; session: DashboardSession }> {
  const token = randomBytes(32).toString('base64url');
  const session = em.create(DashboardSession, {
    user,
    tokenHash: sha256(token),
    userAgent: userAgent ? [...userAgent].slice(0, USER_AGENT_MAX).join('').replace(/[\u0000-\u001f\u007f-\u009f]/g, '') : null,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: new Date(now.getTime() + SESSION_ABSOLUTE_MS),
    revokedAt: null,
  });
  await em.flush();
  return { token, session };
}

export interface SignedIn {
  sessionId: string;
  user: { id: string; email: string; platformOperator: boolean };
  /** Read on every call, so a changed role applies to the next one. */
  roles: Map<string, MemberRole>;
  /**
   * Organizations that require a second factor this session has not proven (second-factor.ts): their data is
   * refused. A member's among their own; a platform operator's among every organization.
   */
  secondFactorMissing: Set<string>;
  /** Whether this session proved the user's current second factor. */
  secondFactorProven: boolean;
}

const live = (session: { revokedAt?: Date | null; expiresAt: Date; lastSeenAt: Date }, disabledAt: Date | null | undefined, now: Date) =>
  !session.revokedAt && session.expiresAt > now && now.getTime() - session.lastSeenAt.getTime() < SESSION_IDLE_MS && !disabledAt;

interface SessionRow {
  session_id: string;
  last_seen_at: Date | string;
  expires_at: Date | string;
  revoked_at: Date | string | null;
  user_id: string;
  email: string;
  platform_operator: boolean;
  disabled_at: Date | string | null;
  organization_id: string | null;
  role: MemberRole | null;
  second_factor_at: Date | string | null;
  second_factor_enabled_at: Date | string | null;
  require_second_factor: boolean | null;
}

/** Whether a session proved the user's current second factor: proven after it was enrolled (an older proof was of another secret). */
export const secondFactorProven = (provenAt: Date | null, enabledAt: Date | null): boolean => provenAt !== null && enabledAt !== null && provenAt >= enabledAt;

const date = (value: Date | string | null) => (value === null ? null : new Date(value));

/**
 * The signed-in user behind a cookie's token, or null when it names no live
 * session. One query on the token's unique index, with the user and their
 * memberships (one row per membership).
 */
export async function resolveSession(em: EntityManager, token: string, now: Date): Promise<SignedIn | null> {
  const rows = await em.getConnection().execute<SessionRow[]>(
    `select s.id as session_id, s.last_seen_at, s.expires_at, s.revoked_at, s.second_factor_at, u.id as user_id, u.email, u.platform_operator, u.disabled_at, u.second_factor_enabled_at,
            m.organization_id, m.role, o.require_second_factor
       from dashboard_sessions s
       join users u on u.id = s.user_id
       left join memberships m on m.user_id = u.id
       left join organizations o on o.id = m.organization_id
      where s.token_hash = ?`,
    [sha256(token)],
  );
  const first = rows[0];
  if (!first) return null;
  const session = { revokedAt: date(first.revoked_at), expiresAt: date(first.expires_at)!, lastSeenAt: date(first.last_seen_at)! };
  if (!live(session, date(first.disabled_at), now)) return null;
  if (now.getTime() - session.lastSeenAt.getTime() >= LAST_SEEN_PRECISION_MS) {
    await em.nativeUpdate(DashboardSession, { id: first.session_id }, { lastSeenAt: now });
  }
  const proven = secondFactorProven(date(first.second_factor_at), date(first.second_factor_enabled_at));
  const operator = Boolean(first.platform_operator);
  return {
    sessionId: first.session_id,
    user: { id: first.user_id, email: first.email, platformOperator: operator },
    roles: new Map(rows.filter((row) => row.organization_id && row.role).map((row) => [row.organization_id!, row.role!])),
    secondFactorMissing: proven
      ? new Set()
      : operator
        ? await organizationsRequiringSecondFactor(em)
        : new Set(rows.filter((row) => row.organization_id && row.require_second_factor).map((row) => row.organization_id!)),
    secondFactorProven: proven,
  };
}

/** A platform operator reads any organization: the requirement of each that has one applies to them too. */
async function organizationsRequiringSecondFactor(em: EntityManager): Promise<Set<string>> {
  const rows = await em.getConnection().execute<{ id: string }[]>(`select id from organizations where require_second_factor`);
  return new Set(rows.map((row) => row.id));
}

/** What the dashboard learns at log-in and on reload: who, their CSRF token, their organizations and roles. */
export async function sessionAnswer(em: EntityManager, user: { id: string; email: string; platformOperator: boolean }, token: string) {
  const memberships = await em.find(Membership, { user: user.id }, { populate: ['organization', 'user'], orderBy: { createdAt: 'asc' } });
  const session = await em.findOne(DashboardSession, { tokenHash: sha256(token) }, { populate: ['user'] });
  const enabledAt = session?.user.secondFactorEnabledAt ?? null;
  const proven = secondFactorProven(session?.secondFactorAt ?? null, enabledAt);
  return {
    user: { id: user.id, email: user.email, platformOperator: user.platformOperator },
    csrfToken: csrfTokenFor(token),
    memberships: memberships.map((m) => ({ organizationId: m.organization.id, organizationName: m.organization.name, role: m.role })),
    /** The dashboard leads to enrolment (or a new log-in) instead of the pages of an organization in `missingFor`. */
    secondFactor: {
      enabled: enabledAt !== null,
      sessionProven: proven,
      requiredBy: memberships.filter((m) => m.organization.requireSecondFactor).map((m) => m.organization.id),
      missingFor: proven ? [] : memberships.filter((m) => m.organization.requireSecondFactor).map((m) => m.organization.id),
    },
  };
}

export async function listSessions(em: EntityManager, userId: string, currentId: string | null, now: Date) {
  const sessions = await em.find(DashboardSession, { user: userId, revokedAt: null, expiresAt: { $gt: now } }, { orderBy: { lastSeenAt: 'desc' }, populate: ['user'] });
  return sessions
    .filter((session) => live(session, session.user.disabledAt, now))
    .map((session) => ({
      id: session.id,
      createdAt: session.createdAt.toISOString(),
      lastSeenAt: session.lastSeenAt.toISOString(),
      expiresAt: session.expiresAt.toISOString(),
      userAgent: session.userAgent ?? null,
      current: session.id === currentId,
    }));
}

/** Ends one of the user's own sessions; another user's is answered as if it did not exist. */
export async function revokeSession(em: EntityManager, userId: string, sessionId: string, now: Date): Promise<{ revoked: boolean }> {
  const changed = await em.nativeUpdate(DashboardSession, { id: sessionId, user: userId, revokedAt: null }, { revokedAt: now });
  if (changed === 0 && !(await em.findOne(DashboardSession, { id: sessionId, user: userId }))) {
    throw operatorRefusal('not_found', `Session ${sessionId} does not exist.`);
  }
  return { revoked: true };
}
