/**
 * The audit log, read (it is written by operator/audited.ts and
 * domain/audit/record.ts; nothing changes or deletes an entry). An
 * organization's owners read its log: who changed what is about people as
 * much as configuration, so developers and viewers do not. A platform
 * operator reads every organization's, and the platform's own entries
 * (user accounts), with or without an organization filter.
 */
import { listAudit } from '../domain/audit/list';
import { operatorRefusal } from '../domain/refusal';
import { organizationAccess, visibleOrganizations } from './access';
import { AuditListInput } from '../contract/operator/audit';
import { operatorProcedure, operatorT as t } from './procedure';

export const auditRouter = t.router({
  /** Newest first; `cursor` is the previous page's `nextCursor`. */
  list: operatorProcedure.input(AuditListInput).query(async ({ ctx, input }) => {
    const { organizationId, ...filter } = input;
    if (organizationId) await organizationAccess(ctx, organizationId, 'own');
    else if (ctx.actor.kind !== 'operator') throw operatorRefusal('invalid', 'organizationId: name the organization whose audit log to read.');
    return listAudit(ctx.reads, { ...filter, organizations: organizationId ? { $in: [organizationId] } : visibleOrganizations(ctx.actor) });
  }),
});
