/**
 * Platform operators and the second factor: an organization's requirement
 * holds for an operator's session reading it, as for its members; in
 * production an operator's session without a proven second factor is refused
 * every operator procedure (it can still enrol), while the admin token (the
 * CLI) and members are not affected.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service';
import { createTenant } from '../support/tenant';
import { login, PASSWORD, uniqueEmail, type Browser } from '../support/dashboard-sessions';
import { enrolSecondFactor } from '../support/second-factor';
import { startSmtpInbox, type SmtpInbox } from '../support/smtp-inbox';

const STEP = 30_000;
/** The services' clock: moved a step on whenever a test needs a code not yet used. */
let clock = Date.now();
const tick = (steps = 1) => (clock += steps * STEP);

let development: TestService;
let production: TestService;
let inbox: SmtpInbox;

beforeAll(async () => {
  inbox = await startSmtpInbox();
  [development, production] = await Promise.all([
    // Local endpoint URLs: the lists test makes endpoints that are never delivered to.
    startTestService({ now: () => new Date(clock), env: { WEBHOOK_ALLOW_LOCAL_URLS: 'true' } }),
    startTestService({
      now: () => new Date(clock),
      env: {
        NODE_ENV: 'production',
        MASTER_KEY: randomBytes(32).toString('base64'),
        // Production's start-up check wants one; the test's own database is used.
        DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused',
        SMTP_URL: inbox.url,
      },
    }),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all([development?.stop(), production?.stop()]);
  await inbox?.close();
});

async function operator(service: TestService): Promise<Browser> {
  const email = uniqueEmail('operator');
  await service.admin.users.create({ email, password: PASSWORD, platformOperator: true });
  return login(service, email);
}

describe("an organization's requirement applies to platform operators reading it", () => {
  it('an operator session without a proven second factor gets 403 second_factor_required on that organization only, until it enrols', async () => {
    const required = await createTenant(development);
    const open = await createTenant(development);
    await development.admin.auth.setOrganizationSecondFactor({ organizationId: required.organizationId, required: true });
    const browser = await operator(development);

    const refused = await browser.call('projects.list', { organizationId: required.organizationId });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'second_factor_required', message: expect.stringMatching(/requires a second factor/) });
    expect((await browser.call('environments.list', { projectId: required.projectId })).body.error).toBe('second_factor_required');
    expect((await browser.call('projects.list', { organizationId: open.organizationId })).status).toBe(200);
    // Outside production the operator's own procedures still answer.
    expect((await browser.call('users.list')).status).toBe(200);

    await enrolSecondFactor(browser, tick);
    expect((await browser.call('projects.list', { organizationId: required.organizationId })).status).toBe(200);
  });

  it("lists across organizations leave out the records of an organization that requires one, until the session proves it", async () => {
    const required = await createTenant(development);
    const open = await createTenant(development);
    for (const tenant of [required, open]) {
      await development.admin.webhooks.createEndpoint({ environmentId: tenant.environmentId, url: 'http://127.0.0.1:9/hooks' });
    }
    await development.admin.auth.setOrganizationSecondFactor({ organizationId: required.organizationId, required: true });
    const browser = await operator(development);

    const data = async (procedure: string, input?: unknown) => (await browser.call(procedure, input)).body.result.data;
    /** What each list across organizations shows of the two organizations: [required, open]. */
    const shown = async () => {
      const organizations = (await data('organizations.list')).map((row: { id: string }) => row.id);
      const projects = (await data('projects.list', {})).map((row: { organizationId: string }) => row.organizationId);
      const environments = (await data('environments.list', {})).map((row: { id: string }) => row.id);
      const endpoints = (await data('webhooks.listEndpoints', {})).map((row: { environmentId: string }) => row.environmentId);
      const audit = (await data('audit.list', { limit: 100 })).items.map((row: { organizationId: string | null }) => row.organizationId);
      return [required, open].map((tenant) => ({
        organization: organizations.includes(tenant.organizationId),
        project: projects.includes(tenant.organizationId),
        environment: environments.includes(tenant.environmentId),
        endpoint: endpoints.includes(tenant.environmentId),
        audit: audit.includes(tenant.organizationId),
      }));
    };
    const all = { organization: true, project: true, environment: true, endpoint: true, audit: true };
    const none = { organization: false, project: false, environment: false, endpoint: false, audit: false };
    expect(await shown()).toEqual([none, all]);
    // The platform's own entries (the operator's account created) stay in the audit log.
    const platform = (await data('audit.list', { limit: 100 })).items.filter((row: { organizationId: string | null }) => row.organizationId === null);
    expect(platform.length).toBeGreaterThan(0);

    await enrolSecondFactor(browser, tick);
    expect(await shown()).toEqual([all, all]);
  });
});

describe('in production an operator needs a second factor', () => {
  it('refuses operator procedures to an operator session without one, with how to enrol; enrolling is allowed and then everything answers', async () => {
    const tenant = await createTenant(production);
    const browser = await operator(production);

    const refused = await browser.call('users.list');
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'second_factor_required', message: expect.stringMatching(/^Platform operators need a second factor in production: set one up on the Security page/) });
    expect((await browser.call('projects.list', { organizationId: tenant.organizationId })).body.error).toBe('second_factor_required');
    expect((await browser.call('organizations.create', { name: 'Not without a second factor' }, { mutation: true })).body.error).toBe('second_factor_required');
    // An organization's requirement is not their own account's.
    const requirement = await browser.call('auth.setOrganizationSecondFactor', { organizationId: tenant.organizationId, required: true }, { mutation: true });
    expect(requirement.body.error).toBe('second_factor_required');
    // Their own account still answers: the session, and enrolling.
    expect((await browser.call('auth.session')).status).toBe(200);
    await enrolSecondFactor(browser, tick);
    expect((await browser.call('users.list')).status).toBe(200);
    expect((await browser.call('projects.list', { organizationId: tenant.organizationId })).status).toBe(200);
  });

  it('members and the admin token are not affected', async () => {
    const tenant = await createTenant(production);
    const email = uniqueEmail('member');
    await production.admin.users.create({ email, password: PASSWORD });
    await production.admin.members.add({ organizationId: tenant.organizationId, email, role: 'viewer' });
    const member = await login(production, email);
    expect((await member.call('projects.list', { organizationId: tenant.organizationId })).status).toBe(200);
    expect((await production.admin.users.list()).length).toBeGreaterThan(0);
  });
});
