/**
 * The audit log's one writer. Every change to an organization's keys,
 * routing, gateways, endpoints, members, settings, billing or quota, and to
 * the platform's tenancy, records an entry with `recordAudit`.
 *
 * Same transaction as the change, always: call it with the very
 * EntityManager that makes the change, inside that change's
 * `em.transactional(...)` (operator/audited.ts does so for the operator API), or
 * before the one `em.flush()` that writes the change. Then the change and its
 * entry commit together: a change that rolls back leaves no entry, and an
 * entry that cannot be written fails the change.
 *
 * Entries are never updated or deleted (a database trigger refuses it).
 *
 * Example (a second-factor setting):
 *   await em.transactional(async (tx) => {
 *     const before = { totpEnabled: user.totpEnabled };
 *     user.totpEnabled = true; user.totpSecret = sealed;
 *     await recordAudit(tx, {
 *       actor, action: 'user.totp.enabled', organizationId: null,
 *       target: { type: 'user', id: user.id },
 *       before, after: { totpEnabled: true, totpSecret: 'set' },
 *     });
 *   });
 */
import { AuditEntry } from '../../db/entities';
import type { AuditActorKind, AuditSnapshot } from '../../db/entities/audit-entry';
import type { EntityManager } from '../../db/orm';
import { redactSnapshot } from './redact';

/** Who acted, and from where. operator/audited.ts `auditActorOf(ctx)` builds it from a procedure's context. */
export interface AuditActor {
  kind: AuditActorKind;
  /** The user's id (kind user or operator), the API key's id (sandbox_key); null for the admin token and the system. */
  id: string | null;
  /** The user's e-mail now: it is kept as it was when they acted. */
  email: string | null;
  /** The client's address and user agent; null for in-process callers. */
  address: string | null;
  userAgent: string | null;
}

/** One change: what was done to what, in which organization, and the record before and after. */
export interface AuditRecord {
  actor: AuditActor;
  /** Stable dotted name, `<target>.<verb in the past>`: `api_key.created`, `routing.rule.updated`, `member.role_changed`. */
  action: string;
  /** Null only for what concerns the platform itself (a user account). */
  organizationId: string | null;
  environmentId?: string | null;
  target: { type: string; id: string | null };
  /** The record as it was (null: it did not exist) and as it is now (null: it is gone). Secrets are replaced by markers here anyway. */
  before?: AuditSnapshot | null;
  after?: AuditSnapshot | null;
}

/** Writes the entry with the change's EntityManager (see above); answers the entry as stored. */
export async function recordAudit(em: EntityManager, entry: AuditRecord): Promise<AuditEntry> {
  const row = em.create(AuditEntry, {
    organizationId: entry.organizationId,
    environmentId: entry.environmentId ?? null,
    actorKind: entry.actor.kind,
    actorId: entry.actor.id,
    actorEmail: entry.actor.email,
    action: entry.action,
    targetType: entry.target.type,
    targetId: entry.target.id,
    before: redactSnapshot(entry.before),
    after: redactSnapshot(entry.after, entry.before),
    address: entry.actor.address?.slice(0, 255) ?? null,
    userAgent: entry.actor.userAgent?.slice(0, 1000) ?? null,
  });
  await em.flush();
  return row;
}
