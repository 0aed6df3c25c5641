import { defineEntity, p } from '@mikro-orm/core';
import { newId } from '../../contract/ids';

/** Who made a change: a dashboard user, an operator (a user marked so, or the admin token), a sandbox API key, or the service itself. */
export const AUDIT_ACTOR_KINDS = ['user', 'operator', 'sandbox_key', 'system'] as const;
export type AuditActorKind = (typeof AUDIT_ACTOR_KINDS)[number];

/** A JSON snapshot of the changed record, secrets already replaced by markers (domain/audit/redact.ts). */
export type AuditSnapshot = Record<string, unknown>;

/**
 * One change to an organization's configuration (keys, routing, gateways,
 * endpoints, members, billing, quota, tenancy), written in the same
 * transaction as the change. Append-only: nothing updates or deletes a row.
 * Organization, environment and target are plain ids, not foreign keys: the
 * entry must outlive what it names, and writing it never locks their rows.
 */
export const AuditEntrySchema = defineEntity({
  name: 'AuditEntry',
  tableName: 'audit_entries',
  indexes: [
    { properties: ['organizationId', 'createdAt', 'id'] },
    { properties: ['createdAt', 'id'] },
  ],
  properties: {
    id: p.string().primary().onCreate(() => newId('aud')),
    /** Null for what an operator does to the platform itself (a user account). */
    organizationId: p.string().nullable(),
    environmentId: p.string().nullable(),
    actorKind: p.enum(AUDIT_ACTOR_KINDS),
    /** The user's or sandbox key's id; null for the admin token and the system. */
    actorId: p.string().nullable(),
    /** The user's e-mail when they acted (it may change later). */
    actorEmail: p.string().nullable(),
    /** Stable dotted name: `routing.rule.updated`, `api_key.revoked`… */
    action: p.string().length(100),
    targetType: p.string().length(50),
    targetId: p.string().nullable(),
    before: p.json<AuditSnapshot>().nullable(),
    after: p.json<AuditSnapshot>().nullable(),
    address: p.string().nullable(),
    userAgent: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class AuditEntry extends AuditEntrySchema.class {}
AuditEntrySchema.setClass(AuditEntry);
