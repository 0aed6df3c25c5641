/**
 * Every mutation of the operator API either writes an audit entry naming the
 * caller, the action and the record it changed, or is listed in EXEMPT with
 * the reason it is not configuration. The mutations are read from the router:
 * one added later without a case here or an exemption fails the first test.
 * The same run checks no secret handed out or taken in (API key, webhook
 * signing secrets, gateway credentials, passwords, invitation tokens)
 * appears in any entry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorRouter } from '../../server/operator/router';
import { AuditEntry } from '../../server/db/entities';
import { startTestService, type TestService } from '../support/service';
import { startPeopleMail, type PeopleMail } from '../support/people-mail';
import { AUDIT_ADDRESS, AUDIT_PASSWORD, AUDIT_USER_AGENT, auditEmail, callerAs, memberActor } from '../support/audit';

/**
 * Audited mutations whose entries another test checks, because calling them
 * needs what this file does not set up (a second factor's time-based codes).
 * The value names that test; it must check the entry's action and actor.
 */
const AUDITED_ELSEWHERE: Record<string, string> = {
  'auth.startSecondFactor': 'test/dashboard/second-factor.test.ts',
  'auth.confirmSecondFactor': 'test/dashboard/second-factor.test.ts',
  'auth.disableSecondFactor': 'test/dashboard/second-factor.test.ts',
  'auth.regenerateRecoveryCodes': 'test/dashboard/second-factor.test.ts',
  'auth.setOrganizationSecondFactor': 'test/dashboard/second-factor.test.ts',
  'users.resetSecondFactor': 'test/dashboard/second-factor.test.ts',
};

/** Mutations that record no entry, and why. Keep each reason true. */
const EXEMPT: Record<string, string> = {
  'auth.login': 'a log-in opens a session: sessions have their own list (auth.sessions)',
  'auth.verifySecondFactor': 'the second step of a log-in: it opens a session (auth.sessions)',
  'auth.logout': 'ends the caller\'s own session (auth.sessions)',
  'auth.revokeSession': 'ends one of the caller\'s own sessions (auth.sessions)',
  'auth.changePassword': 'the caller\'s own credentials; it ends their other sessions (auth.sessions)',
  'auth.requestPasswordReset': 'mails a link, changes nothing',
  'auth.resetPassword': 'the user\'s own credentials, by the mailed link; it ends their sessions',
  'auth.unlockSecondFactorCodes': 'the user\'s own second factor, by the mailed link: codes are accepted again; nothing is configured',
  'payments.cancel': 'acts on a payment as /v1 does: the payment\'s events record it',
  'payments.sync': 'reads the payment at its gateway: the payment\'s events record any change',
  'subscriptions.cancel': 'acts on a subscription as /v1 does: its events record it',
  'subscriptions.sync': 'reads the subscription at its gateway: its events record any change',
  'refunds.create': 'money movement, not configuration: the refund and its events record it',
  'webhooks.resend': 'queues a delivery again: the delivery\'s attempts record it',
  'webhooks.resendFailed': 'queues deliveries again: their attempts record it',
  'webhooks.sendTestEvent': 'a test event to one endpoint, changing nothing: its delivery and attempts record it',
  'sandbox.createPayment': 'sandbox test traffic, not configuration',
  'simulators.payment': 'sandbox test traffic, not configuration',
  'simulators.subscription': 'sandbox test traffic, not configuration',
  'simulators.refund': 'sandbox test traffic, not configuration',
  'simulators.trigger': 'sandbox test events, not configuration',
  'simulators.replay': 'sandbox test webhooks, not configuration',
  'simulators.fault': 'the simulators\' test faults, not configuration',
  'simulators.clearFaults': 'the simulators\' test faults, not configuration',
  'simulators.refundSettlement': 'the simulators\' test behaviour, not configuration',
};

interface Fixture {
  organizationId: string;
  spareProjectId: string;
  environmentId: string;
  apiKeyId: string;
  endpointId: string;
  invitationId: string;
  invitationToken: string;
  developerUserId: string;
  leaverUserId: string;
  disposableUserId: string;
  disposableEmail: string;
}

type As = 'owner' | 'operator' | 'invitee';

interface Audited {
  as: As;
  input: (f: Fixture) => unknown;
  action: string;
  /** The target id the entry names, from the fixture or the answer. */
  target: (f: Fixture, answer: any) => string | null;
  /** The entry's organization: the fixture's unless said otherwise. */
  organization?: (f: Fixture, answer: any) => string | null;
}

const GATEWAY_SECRET = 'gw-secret-value-never-logged';
const BASE_URL = 'http://127.0.0.1:9';

const AUDITED: Record<string, Audited> = {
  'organizations.create': { as: 'operator', input: () => ({ name: 'Audited organization' }), action: 'organization.created', target: (_f, a) => a.id, organization: (_f, a) => a.id },
  'organizations.setBilling': { as: 'operator', input: (f) => ({ organizationId: f.organizationId, billingStatus: 'past_due', monthlyTxLimit: 500 }), action: 'organization.billing_changed', target: (f) => f.organizationId },
  'projects.create': { as: 'owner', input: (f) => ({ organizationId: f.organizationId, name: 'Audited project', withEnvironments: true }), action: 'project.created', target: (_f, a) => a.id },
  'environments.create': { as: 'owner', input: (f) => ({ projectId: f.spareProjectId, kind: 'production' }), action: 'environment.created', target: (_f, a) => a.id },
  'apiKeys.create': { as: 'owner', input: (f) => ({ environmentId: f.environmentId, name: 'audited' }), action: 'api_key.created', target: (_f, a) => a.id },
  'apiKeys.revoke': { as: 'owner', input: (f) => ({ apiKeyId: f.apiKeyId }), action: 'api_key.revoked', target: (f) => f.apiKeyId },
  'apiKeys.setRateLimits': { as: 'owner', input: (f) => ({ apiKeyId: f.apiKeyId, limits: { default: 100 } }), action: 'api_key.rate_limits_changed', target: (f) => f.apiKeyId },
  'gateways.configure': {
    as: 'operator',
    input: (f) => ({ environmentId: f.environmentId, gateway: 'gateway_a', baseUrl: BASE_URL, credentials: { secretKey: `${GATEWAY_SECRET}-2`, webhookSecret: GATEWAY_SECRET } }),
    action: 'gateway.configured',
    target: (_f, a) => a.id,
  },
  'gateways.setEnabled': { as: 'owner', input: (f) => ({ environmentId: f.environmentId, gateway: 'gateway_a', enabled: false }), action: 'gateway.disabled', target: (_f, a) => a.id },
  'routing.set': { as: 'owner', input: (f) => ({ environmentId: f.environmentId, method: 'PIX', gateway: 'gateway_a' }), action: 'routing.rule.updated', target: () => 'PIX' },
  'routing.remove': { as: 'owner', input: (f) => ({ environmentId: f.environmentId, method: 'CARD' }), action: 'routing.rule.removed', target: () => 'CARD' },
  'webhooks.createEndpoint': { as: 'owner', input: (f) => ({ environmentId: f.environmentId, url: 'http://127.0.0.1:9/audited' }), action: 'webhook_endpoint.created', target: (_f, a) => a.id },
  'webhooks.updateEndpoint': { as: 'owner', input: (f) => ({ endpointId: f.endpointId, description: 'renamed', enabled: false }), action: 'webhook_endpoint.updated', target: (f) => f.endpointId },
  'webhooks.rotateSecret': { as: 'owner', input: (f) => ({ endpointId: f.endpointId, keepPreviousFor: 'now' }), action: 'webhook_endpoint.secret_rotated', target: (f) => f.endpointId },
  'members.invite': { as: 'owner', input: (f) => ({ organizationId: f.organizationId, email: auditEmail('invited'), role: 'viewer' }), action: 'member.invited', target: (_f, a) => a.invitation.id },
  'members.add': { as: 'operator', input: (f) => ({ organizationId: f.organizationId, email: f.disposableEmail, role: 'viewer' }), action: 'member.added', target: (f) => f.disposableUserId },
  'members.revokeInvitation': { as: 'owner', input: (f) => ({ organizationId: f.organizationId, invitationId: f.invitationId }), action: 'member.invitation_revoked', target: (f) => f.invitationId },
  'members.setRole': { as: 'owner', input: (f) => ({ organizationId: f.organizationId, userId: f.developerUserId, role: 'viewer' }), action: 'member.role_changed', target: (f) => f.developerUserId },
  'members.remove': { as: 'owner', input: (f) => ({ organizationId: f.organizationId, userId: f.leaverUserId }), action: 'member.removed', target: (f) => f.leaverUserId },
  'users.create': { as: 'operator', input: () => ({ email: auditEmail('created'), password: AUDIT_PASSWORD }), action: 'user.created', target: (_f, a) => a.id, organization: () => null },
  'users.setDisabled': { as: 'operator', input: (f) => ({ userId: f.disposableUserId, disabled: true }), action: 'user.disabled', target: (f) => f.disposableUserId, organization: () => null },
  'auth.acceptInvitation': { as: 'invitee', input: (f) => ({ token: f.invitationToken, password: AUDIT_PASSWORD }), action: 'member.joined', target: (_f, a) => a.user?.id ?? a.userId ?? null },
};

const MUTATIONS = Object.entries(operatorRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>)
  .filter(([, procedure]) => procedure._def.type === 'mutation')
  .map(([path]) => path)
  .sort();

describe('audit log coverage', () => {
  let service: TestService;
  let fixture: Fixture;
  let ownerId: string;
  let ownerEmail: string;
  let operatorId: string;
  let operatorEmail: string;
  const secrets: string[] = [GATEWAY_SECRET, AUDIT_PASSWORD];
  let mail: PeopleMail;

  beforeAll(async () => {
    mail = await startPeopleMail();
    service = await startTestService({ env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true', ...mail.env } });
    const admin = service.admin;
    const organization = await admin.organizations.create({ name: 'Audit coverage' });
    const project = await admin.projects.create({ organizationId: organization.id, name: 'Main', withEnvironments: true });
    const spare = await admin.projects.create({ organizationId: organization.id, name: 'Spare' });
    const environmentId = (project as { environments: { id: string; kind: string }[] }).environments.find((environment) => environment.kind === 'sandbox')!.id;
    const key = await admin.apiKeys.create({ environmentId });
    secrets.push(key.secret);
    const endpoint = await admin.webhooks.createEndpoint({ environmentId, url: 'http://127.0.0.1:9/hook', enabled: true });
    secrets.push(endpoint.secret);
    await admin.gateways.configure({ environmentId, gateway: 'gateway_a', baseUrl: BASE_URL, credentials: { secretKey: `${GATEWAY_SECRET}-1`, webhookSecret: `${GATEWAY_SECRET}-0` } });
    await admin.routing.set({ environmentId, method: 'PIX', gateway: 'gateway_a' });
    await admin.routing.set({ environmentId, method: 'CARD', gateway: 'gateway_a' });

    const user = async (label: string, platformOperator = false) => {
      const email = auditEmail(label);
      return { email, id: (await admin.users.create({ email, password: AUDIT_PASSWORD, platformOperator })).id };
    };
    const owner = await user('owner');
    const operator = await user('operator', true);
    const developer = await user('developer');
    const leaver = await user('leaver');
    const disposable = await user('disposable');
    ({ id: ownerId, email: ownerEmail } = owner);
    ({ id: operatorId, email: operatorEmail } = operator);
    await admin.members.add({ organizationId: organization.id, email: owner.email, role: 'owner' });
    await admin.members.add({ organizationId: organization.id, email: developer.email, role: 'developer' });
    await admin.members.add({ organizationId: organization.id, email: leaver.email, role: 'viewer' });
    const [revocableEmail, inviteeEmail] = [auditEmail('revocable'), auditEmail('invitee')];
    const revocable = await admin.members.invite({ organizationId: organization.id, email: revocableEmail, role: 'viewer' });
    await admin.members.invite({ organizationId: organization.id, email: inviteeEmail, role: 'developer' });
    const invitationToken = new URL(await mail.link(service, inviteeEmail, 'invitation')).hash.slice(1);
    secrets.push(invitationToken, new URL(await mail.link(service, revocableEmail, 'invitation')).hash.slice(1));
    fixture = {
      organizationId: organization.id,
      spareProjectId: spare.id,
      environmentId,
      apiKeyId: key.id,
      endpointId: endpoint.id,
      invitationId: revocable.invitation.id,
      invitationToken,
      developerUserId: developer.id,
      leaverUserId: leaver.id,
      disposableUserId: disposable.id,
      disposableEmail: disposable.email,
    };
  }, 180_000);
  afterAll(async () => {
    await service?.stop();
    await mail?.close();
  });

  it('knows every mutation: audited here, or exempt with a reason', () => {
    const lists = [AUDITED, AUDITED_ELSEWHERE, EXEMPT];
    const unknown = MUTATIONS.filter((path) => lists.every((list) => !(path in list)));
    expect(unknown, 'each mutation needs a case in AUDITED (it records an entry: domain/audit/record.ts) or a reason in EXEMPT').toEqual([]);
    const twice = MUTATIONS.filter((path) => lists.filter((list) => path in list).length > 1);
    expect(twice).toEqual([]);
    const gone = lists.flatMap((list) => Object.keys(list)).filter((path) => !MUTATIONS.includes(path));
    expect(gone, 'cases for mutations the router no longer has').toEqual([]);
  });

  it('records who did what to which record, from where, for each audited mutation', async () => {
    const missed: string[] = [];
    for (const path of MUTATIONS.filter((name) => name in AUDITED)) {
      const spec = AUDITED[path]!;
      const caller =
        spec.as === 'operator'
          ? callerAs(service, { kind: 'operator', userId: operatorId })
          : spec.as === 'owner'
            ? callerAs(service, memberActor(ownerId, { [fixture.organizationId]: 'owner' }))
            : callerAs(service, memberActor('usr_nobody', {}));
      const [group, name] = path.split('.') as [string, string];
      const since = new Date(Date.now() - 1000);
      const answer = await (caller as any)[group][name](spec.input(fixture));
      if (answer && typeof answer === 'object' && 'secret' in answer) secrets.push(String(answer.secret));
      const entries = await service.services.db.fork().find(AuditEntry, { action: spec.action, createdAt: { $gte: since } }, { orderBy: { createdAt: 'desc' } });
      const entry = entries.find((row) => row.targetId === spec.target(fixture, answer));
      if (!entry) {
        missed.push(`${path}: no ${spec.action} entry for ${spec.target(fixture, answer)}`);
        continue;
      }
      expect(entry.organizationId ?? null, path).toBe(spec.organization ? spec.organization(fixture, answer) : fixture.organizationId);
      if (spec.as === 'operator') expect([entry.actorKind, entry.actorId, entry.actorEmail], path).toEqual(['operator', operatorId, operatorEmail]);
      if (spec.as === 'owner') expect([entry.actorKind, entry.actorId, entry.actorEmail], path).toEqual(['user', ownerId, ownerEmail]);
      if (spec.as === 'invitee') expect(entry.actorKind, path).toBe('user');
      expect([entry.address, entry.userAgent], path).toEqual([AUDIT_ADDRESS, AUDIT_USER_AGENT]);
      expect(entry.before !== null || entry.after !== null, `${path} says what changed`).toBe(true);
    }
    expect(missed).toEqual([]);
  }, 240_000);

  it('says what changed: before and after of a routing rule, a role, billing', async () => {
    const em = service.services.db.fork();
    const rule = await em.findOneOrFail(AuditEntry, { action: 'routing.rule.removed', targetId: 'CARD' });
    expect(rule.before).toMatchObject({ method: 'CARD', gateway: 'gateway_a' });
    expect(rule.after).toBeNull();
    expect(rule.environmentId).toBe(fixture.environmentId);
    const role = await em.findOneOrFail(AuditEntry, { action: 'member.role_changed' });
    expect([role.before?.role, role.after?.role]).toEqual(['developer', 'viewer']);
    const billing = await em.findOneOrFail(AuditEntry, { action: 'organization.billing_changed', actorId: operatorId });
    expect(billing.before).toMatchObject({ billingStatus: 'active', monthlyTxLimit: null });
    expect(billing.after).toMatchObject({ billingStatus: 'past_due', monthlyTxLimit: 500 });
    const gateway = await em.findOneOrFail(AuditEntry, { action: 'gateway.configured', actorId: operatorId });
    expect(gateway.before?.credentials).toEqual({ secretKey: 'set', webhookSecret: 'set' });
    expect(gateway.after?.credentials).toEqual({ secretKey: 'changed', webhookSecret: 'changed' });
    const rotated = await em.findOneOrFail(AuditEntry, { action: 'webhook_endpoint.secret_rotated' });
    expect([rotated.before?.secret, rotated.after?.secret]).toEqual(['set', 'changed']);
  }, 60_000);

  it('stores no secret: keys, signing secrets, gateway credentials, passwords, invitation tokens', async () => {
    const rows = await service.services.db.fork().find(AuditEntry, {});
    expect(rows.length).toBeGreaterThan(20);
    const stored = JSON.stringify(rows.map((row) => ({ before: row.before, after: row.after, action: row.action, target: row.targetId })));
    const leaked = secrets.filter((secret) => stored.includes(secret));
    expect(leaked).toEqual([]);
    expect(stored).not.toMatch(/sk_(test|live)_[0-9a-z]{32}|whsec_|scrypt|\$argon/);
  }, 60_000);
});
