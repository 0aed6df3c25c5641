import { defineEntity, p } from '@mikro-orm/core';
import { newId } from '../../contract/ids';
import { User } from './user';

/**
 * A dashboard log-in. The browser holds a random token in an HttpOnly
 * cookie; only its SHA-256 is stored, so a copy of the database logs no one
 * in. Its CSRF token is derived from the cookie's token (never stored).
 */
export const DashboardSessionSchema = defineEntity({
  name: 'DashboardSession',
  tableName: 'dashboard_sessions',
  indexes: [{ properties: ['user', 'revokedAt'] }],
  properties: {
    id: p.string().primary().onCreate(() => newId('ses')),
    user: () => p.manyToOne(User),
    tokenHash: p.string().length(64).unique(),
    userAgent: p.string().length(255).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    /** Written at most once a minute; the idle expiry counts from it. */
    lastSeenAt: p.datetime().onCreate(() => new Date()),
    /** The absolute end of the session, whatever its activity. */
    expiresAt: p.datetime(),
    revokedAt: p.datetime().nullable(),
    /** When this session proved the user's second factor (at log-in, or enrolling in it); null: it did not. */
    secondFactorAt: p.datetime().nullable(),
  },
});

export class DashboardSession extends DashboardSessionSchema.class {}
DashboardSessionSchema.setClass(DashboardSession);
