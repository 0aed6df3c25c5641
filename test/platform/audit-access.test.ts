/**
 * Who reads the audit log (an organization's owners, for it; platform
 * operators, for all), how it is filtered and paged, and that a change that
 * fails leaves no entry while an entry that cannot be written fails its change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audited } from '../../server/operator/audited';
import { operatorContext } from '../../server/operator/procedure';
import { AuditEntry, Organization } from '../../server/db/entities';
import { createOrganization } from '../../server/domain/tenancy';
import { startTestService, type TestService } from '../support/service';
import { callerAs, memberActor } from '../support/audit';
import { cli } from '../support/cli';

describe('audit log access', () => {
  let service: TestService;
  let orgA: string;
  let orgB: string;
  let environmentA: string;

  beforeAll(async () => {
    service = await startTestService();
    orgA = (await service.admin.organizations.create({ name: 'Audit A' })).id;
    orgB = (await service.admin.organizations.create({ name: 'Audit B' })).id;
    const project = await service.admin.projects.create({ organizationId: orgA, name: 'A', withEnvironments: true });
    environmentA = (project as { environments: { id: string; kind: string }[] }).environments.find((e) => e.kind === 'sandbox')!.id;
    for (let i = 0; i < 5; i++) await service.admin.apiKeys.create({ environmentId: environmentA, name: `key ${i}` });
    await service.admin.routing.set({ environmentId: environmentA, method: 'PIX', gateway: 'gateway_a' });
    await service.admin.projects.create({ organizationId: orgB, name: 'B' });
  }, 120_000);
  afterAll(() => service?.stop());

  it('an owner reads their organization\'s log; a developer, a viewer and another organization\'s owner cannot', async () => {
    const owner = callerAs(service, memberActor('usr_owner', { [orgA]: 'owner' }));
    const page = await owner.audit.list({ organizationId: orgA });
    expect(page.items.length).toBeGreaterThan(5);
    expect(page.items.every((item) => item.organizationId === orgA)).toBe(true);
    for (const role of ['developer', 'viewer'] as const) {
      await expect(callerAs(service, memberActor('usr_x', { [orgA]: role })).audit.list({ organizationId: orgA })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    }
    const outsider = callerAs(service, memberActor('usr_y', { [orgB]: 'owner' }));
    await expect(outsider.audit.list({ organizationId: orgA })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // Without an organization, a member is asked to name one: no reading across organizations.
    await expect(owner.audit.list({})).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  }, 60_000);

  it('an operator reads every organization\'s log, or one', async () => {
    const operator = callerAs(service, { kind: 'operator', userId: null });
    const all = await operator.audit.list({ limit: 100 });
    expect(new Set(all.items.map((item) => item.organizationId))).toEqual(new Set([orgA, orgB]));
    expect(all.items.find((item) => item.organizationId === orgB)?.organizationName).toBe('Audit B');
    const onlyB = await operator.audit.list({ organizationId: orgB });
    expect(onlyB.items.map((item) => item.action).sort()).toEqual(['organization.created', 'project.created']);
    // In-process callers (the demo seed, these tests) are the system.
    expect(onlyB.items[0]!.actor).toEqual({ kind: 'system', id: null, email: null });
  }, 60_000);

  it('filters by action prefix, target and time, newest first, in pages that neither repeat nor skip', async () => {
    const operator = callerAs(service, { kind: 'operator', userId: null });
    const keys = await operator.audit.list({ organizationId: orgA, action: 'api_key.' });
    expect(keys.items.map((item) => item.after?.name)).toEqual(['key 4', 'key 3', 'key 2', 'key 1', 'key 0']);
    const routing = await operator.audit.list({ organizationId: orgA, action: 'routing.', targetId: 'PIX' });
    expect(routing.items.map((item) => [item.action, item.environmentId])).toEqual([['routing.rule.created', environmentA]]);
    expect((await operator.audit.list({ organizationId: orgA, action: 'routing.rule.created_not' })).items).toEqual([]);
    expect((await operator.audit.list({ organizationId: orgA, from: '2999-01-01T00:00:00Z' })).items).toEqual([]);

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await operator.audit.list({ organizationId: orgA, limit: 2, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((item) => item.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    const everything = await operator.audit.list({ organizationId: orgA, limit: 100 });
    expect(seen).toEqual(everything.items.map((item) => item.id));
    await expect(operator.audit.list({ organizationId: orgA, cursor: 'not-a-cursor' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  }, 60_000);

  it('the CLI lists it (admin token: an operator with no user, and its address)', async () => {
    const created = await cli(service, ['--json', 'key', 'create', '--env', environmentA, '--name', 'from the cli']);
    expect(created.code).toBe(0);
    const listed = await cli(service, ['--json', 'audit', 'list', '--org', orgA, '--action', 'api_key.created', '--limit', '2']);
    expect(listed.code).toBe(0);
    expect(listed.json).toHaveLength(2);
    expect(listed.json[0]).toMatchObject({ action: 'api_key.created', actor: 'admin token', organization: 'Audit A', target: `api_key ${created.json.id}`, after: { name: 'from the cli' } });
    expect(listed.json[0].address).toBeTruthy();
    expect(listed.json[1].nextCursor).toEqual(expect.any(String));
    const table = await cli(service, ['audit', 'list', '--action', 'organization.', '--limit', '5']);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('organization.created');
  }, 120_000);

  it('writes no entry for a change that fails', async () => {
    const before = await service.services.db.fork().count(AuditEntry, {});
    // A second sandbox environment in the same project is refused (409).
    const project = (await service.admin.projects.list({ organizationId: orgA }))[0]!;
    await expect(service.admin.environments.create({ projectId: project.id, kind: 'sandbox' })).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(service.admin.apiKeys.revoke({ apiKeyId: 'key_doesnotexist000000000000' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await service.services.db.fork().count(AuditEntry, {})).toBe(before);
  }, 60_000);

  it('fails the change when its entry cannot be written', async () => {
    const ctx = operatorContext(service.services);
    await expect(
      audited(ctx, async (em, audit) => {
        const organization = await createOrganization(em, { name: 'Never committed', billingStatus: 'active', monthlyTxLimit: null });
        // Longer than the action column holds: the database refuses the entry.
        audit({ action: 'x'.repeat(300), organizationId: organization.id, target: { type: 'organization', id: organization.id }, after: organization });
        return organization;
      }),
    ).rejects.toThrow();
    expect(await service.services.db.fork().count(Organization, { name: 'Never committed' })).toBe(0);
  }, 60_000);
});
