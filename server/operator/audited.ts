/**
 * The operator API's side of the audit log (domain/audit/record.ts): who the
 * caller is, as the log names them, and `audited`, which runs a change and
 * records its entries in one transaction.
 */
import { Invitation, User } from '../db/entities';
import type { Environment } from '../db/entities';
import { memberBefore } from '../domain/audit/snapshots';
import type { EntityManager } from '../db/orm';
import { recordAudit, type AuditActor, type AuditRecord } from '../domain/audit/record';
import { organizationOf } from './access';
import type { OperatorContext } from './procedure';

/**
 * The caller as the log names it: a sandbox API key; a dashboard user (with
 * their e-mail as it is now), an operator one if marked so; the admin token
 * (an operator with no user: the CLI); or, with no HTTP request at all, the
 * system (the demo seed and other in-process callers).
 */
export async function auditActorOf(ctx: OperatorContext): Promise<AuditActor> {
  const address = ctx.web?.address ?? null;
  const userAgent = ctx.web?.userAgent ?? null;
  if (ctx.sandboxKey) return { kind: 'sandbox_key', id: ctx.sandboxKey.apiKeyId, email: null, address, userAgent };
  const userId = ctx.actor.userId;
  if (userId) {
    const user = await ctx.em.findOne(User, { id: userId });
    return { kind: ctx.actor.kind === 'operator' ? 'operator' : 'user', id: userId, email: user?.email ?? null, address, userAgent };
  }
  return { kind: ctx.web ? 'operator' : 'system', id: null, email: null, address, userAgent };
}

/** An entry as a call site describes it; the actor is the caller's. */
export type AuditChange = Omit<AuditRecord, 'actor'>;

/** The organization and environment an environment-scoped change names. */
export const scopeOf = (environment: Environment): Pick<AuditChange, 'organizationId' | 'environmentId'> => ({
  organizationId: organizationOf(environment),
  environmentId: environment.id,
});

/**
 * Runs `change` in a transaction with an EntityManager of its own and writes
 * the entries it reports through `audit` in the same transaction: if the
 * change throws, nothing is written; if an entry cannot be written, the change
 * rolls back. A change that reports no entry is a mistake (every audited
 * procedure must say what it did) and fails.
 */
export async function audited<T>(ctx: OperatorContext, change: (em: EntityManager, audit: (entry: AuditChange) => void) => Promise<T>): Promise<T> {
  const actor = await auditActorOf(ctx);
  return ctx.em.transactional(async (tx) => {
    const entries: AuditChange[] = [];
    const result = await change(tx, (entry) => entries.push(entry));
    if (entries.length === 0) throw new Error('an audited change reported no audit entry');
    for (const entry of entries) await recordAudit(tx, { ...entry, actor });
    return result;
  });
}

/**
 * A user joined an organization by accepting its invitation: they are the
 * actor (they may have had no session yet). Call with the acceptance's own
 * transaction, after it.
 */
export async function auditInvitationAccepted(ctx: OperatorContext, em: EntityManager, user: User): Promise<void> {
  const invitation = await em.findOne(Invitation, { email: user.email, acceptedAt: { $ne: null } }, { orderBy: { acceptedAt: 'desc', id: 'desc' } });
  if (!invitation) throw new Error('an accepted invitation is missing its row');
  const organizationId = invitation.organization.id;
  await recordAudit(em, {
    actor: { kind: 'user', id: user.id, email: user.email, address: ctx.web?.address ?? null, userAgent: ctx.web?.userAgent ?? null },
    action: 'member.joined',
    organizationId,
    target: { type: 'user', id: user.id },
    before: { invitationId: invitation.id, email: invitation.email, role: invitation.role },
    after: await memberBefore(em, organizationId, user.id),
  });
}
