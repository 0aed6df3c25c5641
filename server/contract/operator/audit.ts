/**
 * Inputs of the audit log's list (server/operator/audit.ts). Browser-safe: only zod and
 * the contract, so the dashboard's filter form validates with them too.
 */
import { z } from 'zod';
import { RecordId, text } from '../schemas/text';
import { Cursor, Instant, PAGE_SIZE } from './listing';

/** The actor kinds the log names (db/entities/audit-entry.ts). */
export const AUDIT_ACTOR_KIND_NAMES = ['user', 'operator', 'sandbox_key', 'system'] as const;

export const AuditListInput = z
  .strictObject({
    /** Required of a member (an owner reads their organization's log); an operator may leave it out to read every organization's. */
    organizationId: RecordId.optional(),
    /** `routing.` matches `routing.rule.updated`; a whole name matches only itself. */
    action: text({ min: 1, max: 100 }).optional(),
    /** A user's or key's id, or an e-mail (as it was when they acted). */
    actor: text({ min: 1, max: 320 }).optional(),
    actorKind: z.enum(AUDIT_ACTOR_KIND_NAMES).optional(),
    /** The changed record's id (`key_…`, `usr_…`, a routing rule's method…). */
    targetId: text({ min: 1, max: 255 }).optional(),
    environmentId: RecordId.optional(),
    /** At or after `from`, strictly before `to`. */
    from: Instant.optional(),
    to: Instant.optional(),
    cursor: Cursor.optional(),
    limit: z.int().min(1).max(PAGE_SIZE.max).default(PAGE_SIZE.default),
  })
  .refine((input) => !input.from || !input.to || Date.parse(input.from) < Date.parse(input.to), { message: 'to must be after from', path: ['to'] });
