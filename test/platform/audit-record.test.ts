/**
 * The audit log's writer (domain/audit/record.ts): an entry commits with its
 * change or not at all, secrets become markers, and rows are append-only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditEntry, Organization } from '../../server/db/entities';
import { recordAudit, type AuditActor } from '../../server/domain/audit/record';
import { startTestService, type TestService } from '../support/service';

const SYSTEM: AuditActor = { kind: 'system', id: null, email: null, address: null, userAgent: null };

describe('recordAudit', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  }, 120_000);
  afterAll(() => service?.stop());

  it('writes the entry with the change, and neither when the transaction fails', async () => {
    const organization = await service.admin.organizations.create({ name: 'Audit writer' });
    const em = service.services.db.fork();
    await expect(
      em.transactional(async (tx) => {
        const row = await tx.findOneOrFail(Organization, { id: organization.id });
        row.name = 'Renamed then rolled back';
        await recordAudit(tx, { actor: SYSTEM, action: 'organization.renamed', organizationId: organization.id, target: { type: 'organization', id: organization.id }, before: { name: 'Audit writer' }, after: { name: row.name } });
        throw new Error('the change fails after its entry');
      }),
    ).rejects.toThrow('the change fails');
    const reader = service.services.db.fork();
    expect((await reader.findOneOrFail(Organization, { id: organization.id })).name).toBe('Audit writer');
    expect(await reader.count(AuditEntry, { action: 'organization.renamed' })).toBe(0);

    await em.fork().transactional(async (tx) => {
      await recordAudit(tx, { actor: SYSTEM, action: 'organization.renamed', organizationId: organization.id, target: { type: 'organization', id: organization.id }, before: { name: 'a' }, after: { name: 'b' } });
    });
    expect(await service.services.db.fork().count(AuditEntry, { action: 'organization.renamed' })).toBe(1);
  }, 60_000);

  it('replaces secret fields by markers, keeping credential names', async () => {
    const entry = await recordAudit(service.services.db.fork(), {
      actor: SYSTEM,
      action: 'test.redaction',
      organizationId: null,
      target: { type: 'test', id: null },
      before: { signingSecret: 'whsec_old', credentials: { apiKey: 'k1', merchantId: 'm1' }, name: 'n' },
      after: { signingSecret: 'whsec_new', credentials: { apiKey: 'k2', merchantId: 'm1' }, passwordHash: 'x', keyHash: 'y', totpSecret: 'z', totpEnabled: true, name: 'n' },
    });
    const stored = await service.services.db.fork().findOneOrFail(AuditEntry, { id: entry.id });
    expect(stored.before).toEqual({ signingSecret: 'set', credentials: { apiKey: 'set', merchantId: 'set' }, name: 'n' });
    expect(stored.after).toEqual({ signingSecret: 'changed', credentials: { apiKey: 'changed', merchantId: 'set' }, passwordHash: 'set', keyHash: 'set', totpSecret: 'set', totpEnabled: true, name: 'n' });
    expect(JSON.stringify([stored.before, stored.after])).not.toMatch(/whsec_|k1|k2|m1/);
  }, 60_000);

  it('refuses to update or delete an entry', async () => {
    const entry = await recordAudit(service.services.db.fork(), { actor: SYSTEM, action: 'test.append_only', organizationId: null, target: { type: 'test', id: null } });
    const em = service.services.db.fork();
    await expect(em.nativeUpdate(AuditEntry, { id: entry.id }, { action: 'test.rewritten' })).rejects.toThrow(/append-only/);
    await expect(em.fork().nativeDelete(AuditEntry, { id: entry.id })).rejects.toThrow(/append-only/);
  }, 60_000);
});
