/**
 * Every internal procedure, called over HTTP by dashboard users with a
 * session, as the dashboard calls it. For each one the table says what it
 * needs; the test checks that
 * - a member (even an owner) of another organization gets exactly not_found
 *   for a record of this one, or a list without this organization's data;
 * - a viewer of the organization cannot change anything (403 forbidden);
 * - a developer does developer things but not owner things;
 * - an owner does owner things, and only platform operators do theirs.
 * The list of procedures is read from the router: a procedure added without
 * a case here fails the first test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorRouter } from '../../server/operator/router';
import { RATE_LIMIT_BUCKETS } from '../../server/domain/rate-limits';
import { RATE_LIMIT_BUCKET_NAMES } from '../../server/contract/operator/keys';
import { call, validPayment } from '../support/http';
import { startSandboxedService, type SandboxedService } from '../support/sandboxed-service';
import { startPeopleMail, type PeopleMail } from '../support/people-mail';
import { createTenant, type TestTenant } from '../support/tenant';
import { startReceiver, type Receiver } from '../support/receiver';
import { eventually } from '../support/outbox-events';
import { member, uniqueEmail, type Browser, type Reply } from '../support/dashboard-sessions';

/** The records of the organization under test (A) the cases name. */
interface Fixture {
  organizationId: string;
  projectId: string;
  spareProjectId: string;
  environmentId: string;
  productionEnvironmentId: string;
  apiKeyId: string;
  paymentId: string;
  subscriptionId: string;
  /** A paid payment's refund. */
  refundId: string;
  endpointId: string;
  deliveryId: string;
  eventId: string;
  invitationId: string;
  leaverUserId: string;
  developerUserId: string;
  disposableUserId: string;
  disposableEmail: string;
  simUrl: string;
}

type Need = 'read' | 'develop' | 'own' | 'operator' | 'self' | 'open';

interface Case {
  need: Need;
  /** A valid input naming organization A's records (called afresh for every caller). */
  input?: (f: Fixture) => unknown;
  /**
   * What a member of another organization gets: `not_found` (the record's absence), or `scoped`
   * (an answer that holds nothing of organization A). Operator-only procedures: `forbidden`.
   */
  outsider: 'not_found' | 'scoped' | 'forbidden' | 'own-data';
  /** Whether the allowed caller's call may run here (false when it would disturb the shared simulators). */
  allowedRuns?: boolean;
}

const CASES: Record<string, Case> = {
  'organizations.create': { need: 'operator', outsider: 'forbidden', input: () => ({ name: 'Created by an operator user' }) },
  'organizations.list': { need: 'read', outsider: 'scoped' },
  'organizations.setBilling': { need: 'operator', outsider: 'forbidden', input: (f) => ({ organizationId: f.organizationId, billingStatus: 'active' }) },
  'organizations.usage': { need: 'read', outsider: 'not_found', input: (f) => ({ organizationId: f.organizationId }) },
  'projects.create': { need: 'own', outsider: 'not_found', input: (f) => ({ organizationId: f.organizationId, name: 'Dashboard project', withEnvironments: true }) },
  'projects.list': { need: 'read', outsider: 'not_found', input: (f) => ({ organizationId: f.organizationId }) },
  'environments.create': { need: 'own', outsider: 'not_found', input: (f) => ({ projectId: f.spareProjectId, kind: 'production' }) },
  'environments.list': { need: 'read', outsider: 'not_found', input: (f) => ({ projectId: f.projectId }) },
  'apiKeys.create': { need: 'develop', outsider: 'not_found', input: (f) => ({ environmentId: f.environmentId, name: 'table' }) },
  'apiKeys.list': { need: 'read', outsider: 'not_found', input: (f) => ({ environmentId: f.environmentId }) },
  'apiKeys.revoke': { need: 'develop', outsider: 'not_found', input: (f) => ({ apiKeyId: f.apiKeyId }) },
  'apiKeys.setRateLimits': { need: 'develop', outsider: 'not_found', input: (f) => ({ apiKeyId: f.apiKeyId, limits: { default: 100 } }) },
  'gateways.configure': {
    need: 'develop',
    outsider: 'not_found',
    input: (f) => ({ environmentId: f.productionEnvironmentId, gateway: 'gateway_c', baseUrl: f.simUrl, credentials: { apiKey: 'k', webhookSecret: 's' } }),
  },
  'gateways.setEnabled': { need: 'develop', outsider: 'not_found', input: (f) => ({ environmentId: f.environmentId, gateway: 'gateway_a', enabled: true }) },
  'gateways.list': { need: 'read', outsider: 'not_found', input: (f) => ({ environmentId: f.environmentId }) },
  'gateways.forms': { need: 'read', outsider: 'not_found', input: (f) => ({ environmentId: f.environmentId }) },
  'routing.set': { need: 'develop', outsider: 'not_found', input: (f) => ({ environmentId: f.environmentId, method: 'PIX', gateway: 'gateway_a' }) },
  'routing.remove': { need: 'develop', outsider: 'not_found', input: (f) => ({ environmentId: f.productionEnvironmentId, method: 'PIX' }) },
  'routing.list': { need: 'read', outsider: 'not_found', input: (f) => ({ environmentId: f.environmentId }) },
  'routing.explain': { need: 'read', outsider: 'not_found', input: (f) => ({ environmentId: f.environmentId, method: 'PIX', externalId: 'order-1' }) },
  'routing.health': { need: 'read', outsider: 'not_found', input: (f) => ({ environmentId: f.environmentId }) },
  'simulators.list': { need: 'operator', outsider: 'forbidden' },
  'simulators.payment': { need: 'develop', outsider: 'not_found', input: (f) => ({ paymentId: f.paymentId, outcome: 'pay' }) },
  'simulators.subscription': { need: 'develop', outsider: 'not_found', input: (f) => ({ subscriptionId: f.subscriptionId, outcome: 'renew' }) },
  'simulators.fault': {
    need: 'operator',
    outsider: 'forbidden',
    input: () => ({ gateway: 'gateway_c', operation: 'createPayment', fault: { kind: 'latency', ms: 0 }, times: 1 }),
  },
  'simulators.clearFaults': { need: 'operator', outsider: 'forbidden', input: () => ({ gateway: 'gateway_c' }) },
  'simulators.refund': { need: 'develop', outsider: 'not_found', input: (f) => ({ refundId: f.refundId, outcome: 'settle' }) },
  'simulators.refundSettlement': { need: 'operator', outsider: 'forbidden', input: () => ({ gateway: 'gateway_c', mode: 'later' }) },
  'simulators.trigger': { need: 'develop', outsider: 'not_found', input: (f) => ({ eventType: 'payment.created', environmentId: f.environmentId }) },
  // Sends webhooks of the shared sandbox again: refused to members, not run for the operator here.
  'simulators.replay': { need: 'operator', outsider: 'forbidden', input: () => ({ gateway: 'gateway_a', last: 1 }), allowedRuns: false },
  'webhooks.createEndpoint': { need: 'develop', outsider: 'not_found', input: (f) => ({ environmentId: f.environmentId, url: 'http://127.0.0.1:9/hook' }) },
  'webhooks.listEndpoints': { need: 'read', outsider: 'not_found', input: (f) => ({ environmentId: f.environmentId }) },
  'webhooks.updateEndpoint': { need: 'develop', outsider: 'not_found', input: (f) => ({ endpointId: f.endpointId, description: 'renamed' }) },
  'webhooks.rotateSecret': { need: 'develop', outsider: 'not_found', input: (f) => ({ endpointId: f.endpointId }) },
  'webhooks.sendTestEvent': { need: 'develop', outsider: 'not_found', input: (f) => ({ endpointId: f.endpointId }) },
  'webhooks.listDeliveries': { need: 'read', outsider: 'not_found', input: (f) => ({ environmentId: f.environmentId }) },
  'webhooks.getDelivery': { need: 'read', outsider: 'not_found', input: (f) => ({ deliveryId: f.deliveryId }) },
  'webhooks.resend': { need: 'develop', outsider: 'not_found', input: (f) => ({ deliveryId: f.deliveryId }) },
  'webhooks.resendFailed': { need: 'develop', outsider: 'not_found', input: (f) => ({ environmentId: f.environmentId }) },
  'webhooks.countFailed': { need: 'read', outsider: 'not_found', input: (f) => ({ environmentId: f.environmentId }) },
  'payments.list': { need: 'read', outsider: 'not_found', input: (f) => ({ environmentId: f.environmentId }) },
  'payments.get': { need: 'read', outsider: 'not_found', input: (f) => ({ paymentId: f.paymentId }) },
  'payments.trace': { need: 'read', outsider: 'not_found', input: (f) => ({ environmentId: f.environmentId, paymentId: f.paymentId }) },
  // The fixture payment is not paid: an allowed caller reaches the refund's own rule (409 cannot_refund_status), never an access refusal.
  'refunds.create': { need: 'develop', outsider: 'not_found', input: (f) => ({ environmentId: f.environmentId, paymentId: f.paymentId, amount: 1 }) },
  'refunds.list': { need: 'read', outsider: 'not_found', input: (f) => ({ environmentId: f.environmentId }) },
  'refunds.get': { need: 'read', outsider: 'not_found', input: (f) => ({ refundId: f.refundId }) },
  'subscriptions.list': { need: 'read', outsider: 'not_found', input: (f) => ({ environmentId: f.environmentId }) },
  'subscriptions.get': { need: 'read', outsider: 'not_found', input: (f) => ({ subscriptionId: f.subscriptionId }) },
  'subscriptions.trace': { need: 'read', outsider: 'not_found', input: (f) => ({ environmentId: f.environmentId, subscriptionId: f.subscriptionId }) },
  'sandbox.createPayment': { need: 'develop', outsider: 'not_found', input: (f) => ({ environmentId: f.environmentId, payment: { ...validPayment(), currency: 'BRL' } }) },
  'sandbox.readiness': { need: 'read', outsider: 'not_found', input: (f) => ({ environmentId: f.environmentId }) },
  'payments.cancel': { need: 'develop', outsider: 'not_found', input: (f) => ({ paymentId: f.paymentId }) },
  'payments.sync': { need: 'develop', outsider: 'not_found', input: (f) => ({ paymentId: f.paymentId }) },
  'payments.actions': { need: 'read', outsider: 'not_found', input: (f) => ({ paymentId: f.paymentId }) },
  'subscriptions.actions': { need: 'read', outsider: 'not_found', input: (f) => ({ subscriptionId: f.subscriptionId }) },
  'subscriptions.cancel': { need: 'develop', outsider: 'not_found', input: (f) => ({ subscriptionId: f.subscriptionId, atPeriodEnd: true }) },
  'subscriptions.sync': { need: 'develop', outsider: 'not_found', input: (f) => ({ subscriptionId: f.subscriptionId }) },
  'events.get': { need: 'read', outsider: 'not_found', input: (f) => ({ eventId: f.eventId }) },
  'onboarding.checklist': { need: 'read', outsider: 'not_found', input: (f) => ({ environmentId: f.environmentId }) },
  'overview.summary': { need: 'read', outsider: 'not_found', input: (f) => ({ environmentId: f.environmentId, days: 7 }) },
  'overview.backlog': { need: 'read', outsider: 'not_found', input: (f) => ({ environmentId: f.environmentId }) },
  'overview.outage': { need: 'read', outsider: 'not_found', input: (f) => ({ environmentId: f.environmentId }) },
  // One environment for its members; without one (every environment) it is an operator's view, tested with the CLI.
  'reconciliation.status': { need: 'read', outsider: 'not_found', input: (f) => ({ environmentId: f.environmentId }) },
  'members.list': { need: 'read', outsider: 'not_found', input: (f) => ({ organizationId: f.organizationId }) },
  'members.invite': { need: 'own', outsider: 'not_found', input: (f) => ({ organizationId: f.organizationId, email: uniqueEmail('invited'), role: 'viewer' }) },
  'members.add': { need: 'operator', outsider: 'forbidden', input: (f) => ({ organizationId: f.organizationId, email: f.disposableEmail, role: 'viewer' }) },
  'members.revokeInvitation': { need: 'own', outsider: 'not_found', input: (f) => ({ organizationId: f.organizationId, invitationId: f.invitationId }) },
  'members.setRole': { need: 'own', outsider: 'not_found', input: (f) => ({ organizationId: f.organizationId, userId: f.developerUserId, role: 'developer' }) },
  'members.remove': { need: 'own', outsider: 'not_found', input: (f) => ({ organizationId: f.organizationId, userId: f.leaverUserId }) },
  'users.create': { need: 'operator', outsider: 'forbidden', input: () => ({ email: uniqueEmail('created'), password: 'a long enough password' }) },
  'users.list': { need: 'operator', outsider: 'forbidden' },
  'users.outbox': { need: 'operator', outsider: 'forbidden' },
  'users.setDisabled': { need: 'operator', outsider: 'forbidden', input: (f) => ({ userId: f.disposableUserId, disabled: true }) },
  'users.resetSecondFactor': { need: 'operator', outsider: 'forbidden', input: (f) => ({ email: f.disposableEmail }) },
  // The caller's own log-in and sessions: nothing of an organization (sessions-login.test.ts covers them).
  'auth.login': { need: 'open', outsider: 'own-data' },
  'auth.session': { need: 'open', outsider: 'own-data' },
  'auth.acceptInvitation': { need: 'open', outsider: 'own-data' },
  'auth.invitation': { need: 'open', outsider: 'own-data' },
  'auth.requestPasswordReset': { need: 'open', outsider: 'own-data' },
  'auth.resetPassword': { need: 'open', outsider: 'own-data' },
  'auth.logout': { need: 'self', outsider: 'own-data' },
  'auth.sessions': { need: 'self', outsider: 'own-data' },
  'auth.revokeSession': { need: 'self', outsider: 'own-data' },
  'auth.changePassword': { need: 'self', outsider: 'own-data' },
  // An organization's owners read its audit log; developers and viewers do not (operator/audit.ts).
  'audit.list': { need: 'own', outsider: 'not_found', input: (f) => ({ organizationId: f.organizationId }) },
  'auth.verifySecondFactor': { need: 'open', outsider: 'own-data' },
  'auth.unlockSecondFactorCodes': { need: 'open', outsider: 'own-data' },
  'auth.secondFactor': { need: 'self', outsider: 'own-data' },
  'auth.startSecondFactor': { need: 'self', outsider: 'own-data' },
  'auth.confirmSecondFactor': { need: 'self', outsider: 'own-data' },
  'auth.disableSecondFactor': { need: 'self', outsider: 'own-data' },
  'auth.regenerateRecoveryCodes': { need: 'self', outsider: 'own-data' },
  // Turning it off: turning it on needs the owner's own second factor (second-factor.test.ts).
  'auth.setOrganizationSecondFactor': { need: 'own', outsider: 'not_found', input: (f) => ({ organizationId: f.organizationId, required: false }) },
};

const PROCEDURES = Object.keys(operatorRouter._def.procedures).sort();
const RANK: Record<'viewer' | 'developer' | 'owner', number> = { viewer: 0, developer: 1, owner: 2 };
const NEEDED_RANK: Partial<Record<Need, number>> = { read: 0, develop: 1, own: 2 };

let world: SandboxedService;
let other: TestTenant;
let receiver: Receiver;
let fixture: Fixture;
let viewer: Browser;
let developer: Browser;
let owner: Browser;
let outsider: Browser;
let operator: Browser;

/** Everything an answer mentions of organization A, to check an outsider's list holds none of it. */
const mentionsOrganization = (reply: Reply) => {
  const text = JSON.stringify(reply.body);
  return [fixture.organizationId, fixture.projectId, fixture.environmentId, fixture.paymentId, fixture.endpointId].some((id) => text.includes(id));
};

let mail: PeopleMail;

beforeAll(async () => {
  // Invitations need a mail server outside the embedded demo (decision 22).
  mail = await startPeopleMail();
  world = await startSandboxedService({ simulatorsInService: true, env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true', WEBHOOK_POLL_INTERVAL_MS: '100', ...mail.env }, routes: { PIX: 'gateway_a', CARD: 'gateway_b', SUBSCRIPTION: 'gateway_b' } });
  const admin = world.service.admin;
  const tenant = world.tenant;
  other = await createTenant(world.service);
  receiver = await startReceiver();
  // Every delivery fails: the resend cases have a failed delivery to act on.
  receiver.answer({ status: 500 });
  const endpoint = await admin.webhooks.createEndpoint({ environmentId: tenant.environmentId, url: receiver.url() });

  const payment = await call(world.service.url, 'POST', '/v1/payments', { key: tenant.apiKey, body: validPayment() });
  expect(payment.status).toBe(201);
  const subscription = await call(world.service.url, 'POST', '/v1/subscriptions', {
    key: tenant.apiKey,
    body: { amount: 4990, interval: 'MONTHLY', externalId: 'sub-table', customer: { name: 'Maria', email: 'maria@example.com', document: '12345678909' } },
  });
  expect(subscription.status).toBe(201);
  const delivery = await eventually(async () => (await admin.webhooks.listDeliveries({ environmentId: tenant.environmentId })).items?.[0], 15_000, 'a delivery');

  const paid = await call(world.service.url, 'POST', '/v1/payments', { key: tenant.apiKey, body: validPayment() });
  await world.sandbox.sims.gateway_a.payPayment(paid.body.gatewayRef);
  await eventually(async () => (await call(world.service.url, 'GET', `/v1/payments/${paid.body.id}`, { key: tenant.apiKey })).body.status === 'paid', 15_000, 'a paid payment');
  const refund = await admin.refunds.create({ environmentId: tenant.environmentId, paymentId: paid.body.id, amount: 100 });

  const production = await admin.environments.create({ projectId: tenant.projectId, kind: 'production' });
  const spare = await admin.projects.create({ organizationId: tenant.organizationId, name: 'Spare' });
  const key = await admin.apiKeys.create({ environmentId: tenant.environmentId, name: 'to revoke' });
  const invitation = await admin.members.invite({ organizationId: tenant.organizationId, email: uniqueEmail('pending'), role: 'viewer' });

  [viewer, developer, owner, outsider, operator] = await Promise.all([
    member(world.service, tenant.organizationId, 'viewer'),
    member(world.service, tenant.organizationId, 'developer'),
    member(world.service, tenant.organizationId, 'owner'),
    member(world.service, other.organizationId, 'owner'),
    member(world.service, null, 'owner', { platformOperator: true }),
  ]);
  const leaver = uniqueEmail('leaver');
  const leaverUser = await admin.users.create({ email: leaver, password: 'a long enough password' });
  await admin.members.add({ organizationId: tenant.organizationId, email: leaver, role: 'viewer' });
  const disposable = await admin.users.create({ email: uniqueEmail('disposable'), password: 'a long enough password' });

  fixture = {
    organizationId: tenant.organizationId,
    projectId: tenant.projectId,
    spareProjectId: spare.id,
    environmentId: tenant.environmentId,
    productionEnvironmentId: production.id,
    apiKeyId: key.id,
    paymentId: payment.body.id,
    subscriptionId: subscription.body.id,
    refundId: refund.id,
    endpointId: endpoint.id,
    deliveryId: delivery.id,
    eventId: delivery.eventId,
    invitationId: invitation.invitation!.id,
    leaverUserId: leaverUser.id,
    developerUserId: developer.userId,
    disposableUserId: disposable.id,
    disposableEmail: disposable.email,
    simUrl: world.sandbox.sims.gateway_c.url,
  };
}, 90_000);

afterAll(async () => {
  await receiver?.close();
  await world?.stop();
  await mail?.close();
});

const expectRefused = (reply: Reply, status: number, error: string) => {
  expect({ status: reply.status, error: reply.body?.error }).toEqual({ status, error });
  expect(reply.body).toEqual({ error, message: expect.any(String) });
};

/** Allowed: whatever the procedure then says, it is not an access refusal. */
const expectAllowed = (procedure: string, reply: Reply) => {
  expect([401, 403, 404], `${procedure} answered ${reply.status} ${JSON.stringify(reply.body)}`).not.toContain(reply.status);
  expect(reply.status, `${procedure}: ${JSON.stringify(reply.body)}`).toBeLessThan(500);
};

describe('access to every internal procedure', () => {
  it('has a case for every procedure of the router, and none for a procedure that no longer exists', () => {
    expect(PROCEDURES.filter((name) => !CASES[name])).toEqual([]);
    expect(Object.keys(CASES).filter((name) => !PROCEDURES.includes(name))).toEqual([]);
  });

  it('keeps the dashboard\'s copy of the rate-limit buckets equal to the service\'s', () => {
    expect([...RATE_LIMIT_BUCKET_NAMES]).toEqual([...RATE_LIMIT_BUCKETS]);
  });

  const orgCases = Object.entries(CASES).filter(([, c]) => c.need !== 'self' && c.need !== 'open');

  it.each(orgCases)('%s: refused to a member of another organization as if it did not exist', async (procedure, c) => {
    const reply = await outsider.call(procedure, c.input?.(fixture));
    if (c.outsider === 'not_found') {
      expectRefused(reply, 404, 'not_found');
      expect(reply.body.message).toMatch(/does not exist\.$/);
    } else if (c.outsider === 'forbidden') {
      expectRefused(reply, 403, 'forbidden');
    } else {
      expect(reply.status).toBe(200);
      expect(mentionsOrganization(reply)).toBe(false);
    }
  });

  it.each(orgCases)('%s: each role of the organization gets what its role allows', async (procedure, c) => {
    for (const [role, browser] of [['viewer', viewer], ['developer', developer]] as const) {
      const reply = await browser.call(procedure, c.input?.(fixture));
      const allowed = c.need !== 'operator' && RANK[role] >= NEEDED_RANK[c.need]!;
      if (allowed) expectAllowed(procedure, reply);
      else expectRefused(reply, 403, 'forbidden');
    }
    const byOwner = c.need === 'operator' ? await owner.call(procedure, c.input?.(fixture)) : null;
    if (byOwner) expectRefused(byOwner, 403, 'forbidden');
    if (c.allowedRuns === false) return;
    const allowedCaller = c.need === 'operator' ? operator : owner;
    expectAllowed(procedure, await allowedCaller.call(procedure, c.input?.(fixture)));
  });

  it('scopes lists without a filter to the caller\'s organizations', async () => {
    for (const procedure of ['organizations.list', 'projects.list', 'environments.list', 'webhooks.listEndpoints', 'webhooks.listDeliveries']) {
      const reply = await outsider.call(procedure, procedure.startsWith('webhooks.') ? {} : undefined);
      expect(reply.status, procedure).toBe(200);
      expect(mentionsOrganization(reply), procedure).toBe(false);
      const mine = await viewer.call(procedure, procedure.startsWith('webhooks.') ? {} : undefined);
      expect(mentionsOrganization(mine), procedure).toBe(true);
    }
    const organizations = (await outsider.call('organizations.list')).body.result.data;
    expect(organizations).toEqual([expect.objectContaining({ id: other.organizationId, role: 'owner' })]);
  });

  it('own-session procedures never reach another user\'s sessions', async () => {
    const theirs = (await viewer.call('auth.sessions')).body.result.data as { id: string }[];
    const reply = await outsider.call('auth.revokeSession', { sessionId: theirs[0]!.id });
    expectRefused(reply, 404, 'not_found');
    expect((await viewer.call('auth.sessions')).status).toBe(200);
  });
});
