/**
 * Reading the audit log: newest first, keyset-paged (listing/cursor.ts), by
 * organization (or all of them, for an operator), action prefix, actor,
 * target and time. Who may read is decided by the caller (operator/audit.ts).
 */
import type { FilterQuery } from '@mikro-orm/core';
import { AuditEntry, Organization } from '../../db/entities';
import type { AuditActorKind } from '../../db/entities/audit-entry';
import type { EntityManager } from '../../db/orm';
import { decodeCursor, keysetAfter, pageOf } from '../listing/cursor';
import type { OrganizationCondition } from '../tenancy';

const LIST = 'audit';

export interface AuditFilter {
  /**
   * Which organizations' entries; undefined: every organization's and the platform's own (an operator). The
   * platform's own entries (no organization) stay in a list of all but some organizations.
   */
  organizations: OrganizationCondition | undefined;
  action?: string;
  actor?: string;
  actorKind?: AuditActorKind;
  targetId?: string;
  environmentId?: string;
  from?: string;
  to?: string;
  cursor?: string;
  limit: number;
}

const prefixPattern = (text: string): string => `${text.replace(/[\\%_]/g, '\\$&')}%`;

export const auditEntryView = (entry: AuditEntry, organizationName: string | null) => ({
  id: entry.id,
  organizationId: entry.organizationId ?? null,
  organizationName,
  environmentId: entry.environmentId ?? null,
  actor: { kind: entry.actorKind, id: entry.actorId ?? null, email: entry.actorEmail ?? null },
  action: entry.action,
  target: { type: entry.targetType, id: entry.targetId ?? null },
  before: entry.before ?? null,
  after: entry.after ?? null,
  address: entry.address ?? null,
  userAgent: entry.userAgent ?? null,
  createdAt: entry.createdAt.toISOString(),
});

export type AuditEntryView = ReturnType<typeof auditEntryView>;

export async function listAudit(em: EntityManager, filter: AuditFilter) {
  const and: FilterQuery<AuditEntry>[] = [];
  if (filter.organizations && '$in' in filter.organizations) and.push({ organizationId: filter.organizations });
  if (filter.organizations && '$nin' in filter.organizations) and.push({ $or: [{ organizationId: null }, { organizationId: filter.organizations }] });
  if (filter.action) and.push({ action: { $like: prefixPattern(filter.action) } });
  if (filter.actor) and.push(filter.actor.includes('@') ? { actorEmail: filter.actor.trim().toLowerCase() } : { actorId: filter.actor });
  if (filter.actorKind) and.push({ actorKind: filter.actorKind });
  if (filter.targetId) and.push({ targetId: filter.targetId });
  if (filter.environmentId) and.push({ environmentId: filter.environmentId });
  if (filter.from) and.push({ createdAt: { $gte: new Date(filter.from) } });
  if (filter.to) and.push({ createdAt: { $lt: new Date(filter.to) } });
  if (filter.cursor) {
    const after = decodeCursor(LIST, filter.cursor, 'instant');
    and.push(keysetAfter('createdAt', 'desc', new Date(after.key), after.id));
  }
  const rows = await em.find(AuditEntry, and.length ? { $and: and } : {}, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: filter.limit + 1 });
  const organizationIds = [...new Set(rows.flatMap((row) => (row.organizationId ? [row.organizationId] : [])))];
  const names = new Map(
    organizationIds.length ? (await em.find(Organization, { id: { $in: organizationIds } })).map((organization) => [organization.id, organization.name] as const) : [],
  );
  return pageOf(
    LIST,
    rows,
    filter.limit,
    (row) => ({ key: row.createdAt.toISOString(), id: row.id }),
    (row) => auditEntryView(row, row.organizationId ? (names.get(row.organizationId) ?? null) : null),
  );
}
