/**
 * How invitations reach people, and how many (decision 22, issue 35): by
 * mail, counted per organization and per invited address like password
 * resets, with the same answers whether or not the address has an account.
 * Without a mail server only the embedded demo shows the link to whoever
 * invited; any other service (on PostgreSQL with SEED_DEMO=true too) refuses
 * to invite and names SMTP_URL, creating nothing.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVITATIONS_PER_ADDRESS, INVITATIONS_PER_ORGANIZATION } from '../../server/domain/people/throttle';
import { onPostgres } from '../support/database';
import { internalCall, login, member, PASSWORD, uniqueEmail, type Browser } from '../support/dashboard-sessions';
import { eventually } from '../support/outbox-events';
import { startTestService, type TestService } from '../support/service';
import { startSmtpInbox, type SmtpInbox } from '../support/smtp-inbox';
import { createTenant } from '../support/tenant';

const invite = (owner: Browser, organizationId: string, email: string) => owner.call('members.invite', { organizationId, email, role: 'viewer' });

describe('with a mail server', () => {
  let inbox: SmtpInbox;
  let service: TestService;

  beforeAll(async () => {
    inbox = await startSmtpInbox();
    service = await startTestService({ env: { SMTP_URL: inbox.url } });
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
    await inbox?.close();
  });

  it(`ten identical invitations to one address send ${INVITATIONS_PER_ADDRESS.points} mails; the rest are 429 with Retry-After, alike for an address with an account`, async () => {
    const tenant = await createTenant(service);
    const owner = await member(service, tenant.organizationId, 'owner');
    const known = uniqueEmail('known');
    await service.admin.users.create({ email: known, password: PASSWORD });
    const unknown = uniqueEmail('unknown');
    const answers: Record<string, { status: number; body: unknown; retryAfter: string | null }[]> = {};
    for (const email of [known, unknown]) {
      answers[email] = [];
      for (let i = 0; i < 10; i++) {
        const reply = await invite(owner, tenant.organizationId, email);
        answers[email]!.push({ status: reply.status, body: reply.status === 200 ? 'invited' : reply.body, retryAfter: reply.headers.get('retry-after') });
      }
    }
    const allowed = INVITATIONS_PER_ADDRESS.points;
    expect(answers[unknown]!.map((a) => a.status)).toEqual([...Array(allowed).fill(200), ...Array(10 - allowed).fill(429)]);
    // Nothing tells the inviter which address has an account: the same answers, in the same order (the wait may differ by a second).
    const shape = (list: typeof answers[string]) => list.map((a) => ({ ...a, retryAfter: a.retryAfter !== null }));
    expect(shape(answers[known]!)).toEqual(shape(answers[unknown]!));
    for (const refused of answers[unknown]!.slice(allowed)) {
      expect(refused.body).toEqual({ error: 'rate_limited', message: expect.stringMatching(/Too many invitations/) });
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
      expect(Number(refused.retryAfter)).toBeLessThanOrEqual(INVITATIONS_PER_ADDRESS.seconds);
    }
    // Each answer came once its mail was handed over: the SMTP server holds all there will be.
    expect(inbox.to(known)).toHaveLength(allowed);
    expect(inbox.to(unknown)).toHaveLength(allowed);
    expect((await owner.call('members.list', { organizationId: tenant.organizationId })).body.result.data.invitations).toHaveLength(2 * allowed);
  });

  it(`an organization sends at most ${INVITATIONS_PER_ORGANIZATION.points} invitations an hour; another organization is not held back`, async () => {
    const busy = await createTenant(service);
    const owner = await member(service, busy.organizationId, 'owner');
    for (let i = 0; i < INVITATIONS_PER_ORGANIZATION.points; i++) expect((await invite(owner, busy.organizationId, uniqueEmail('team'))).status).toBe(200);
    const over = await invite(owner, busy.organizationId, uniqueEmail('one-more'));
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ error: 'rate_limited' });
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);

    const other = await createTenant(service);
    const otherOwner = await member(service, other.organizationId, 'owner');
    expect((await invite(otherOwner, other.organizationId, uniqueEmail('elsewhere'))).status).toBe(200);
  });
});

describe('without a mail server', () => {
  async function refusedWithoutMail(env: Record<string, string>) {
    const service = await startTestService({ env });
    try {
      const tenant = await createTenant(service);
      const owner = await member(service, tenant.organizationId, 'owner');
      const reply = await invite(owner, tenant.organizationId, uniqueEmail('nobody-mails-me'));
      expect(reply.status).toBe(412);
      expect(reply.body).toEqual({ error: 'unavailable', message: expect.stringMatching(/no mail server: its operator must set SMTP_URL/) });
      expect(JSON.stringify(reply.body)).not.toMatch(/invitation#/);
      // Nothing was created, and no link waits anywhere.
      expect((await owner.call('members.list', { organizationId: tenant.organizationId })).body.result.data.invitations).toEqual([]);
      const outbox = join(service.dataDir, 'outbox');
      expect(existsSync(outbox) ? readdirSync(outbox) : []).toEqual([]);
    } finally {
      await service.stop();
    }
  }

  it('outside the embedded demo, inviting is 412 unavailable naming SMTP_URL, and nothing is created', async () => {
    await refusedWithoutMail({ SEED_DEMO: 'false' });
  });

  it.skipIf(!onPostgres)('on PostgreSQL with SEED_DEMO=true as well', async () => {
    await refusedWithoutMail({ SEED_DEMO: 'true' });
  });

  it("outside the embedded demo, a password reset's mail stays on the host: operators are not shown the outbox in the dashboard", async () => {
    const service = await startTestService({ env: { SEED_DEMO: 'false' } });
    try {
      const email = uniqueEmail('forgetful');
      await service.admin.users.create({ email, password: PASSWORD });
      expect((await internalCall(service, 'auth.requestPasswordReset', { email }, { mutation: true })).status).toBe(200);
      // The reset link was written to the local outbox (DATA_DIR/outbox)...
      await eventually(async () => service.services.mailer.recent(5).some((mail) => mail.text.includes('/dashboard/reset-password#')));
      // ...and no operator can read it there: they would log in as that person.
      const operatorEmail = uniqueEmail('operator');
      await service.admin.users.create({ email: operatorEmail, password: PASSWORD, platformOperator: true });
      const outbox = await (await login(service, operatorEmail)).call('users.outbox');
      expect(outbox.body.result.data).toEqual({ local: false, mails: [] });
    } finally {
      await service.stop();
    }
  });

  it.skipIf(onPostgres)('in the embedded demo, the link is shown to whoever invited, and the mail waits in the outbox', async () => {
    const service = await startTestService({ env: { SEED_DEMO: 'true' } });
    try {
      const tenant = await createTenant(service);
      const owner = await member(service, tenant.organizationId, 'owner');
      const reply = await invite(owner, tenant.organizationId, uniqueEmail('demo'));
      expect(reply.status).toBe(200);
      const url: string = reply.body.result.data.invitationUrl;
      expect(url).toMatch(new RegExp(`^${service.url}/dashboard/invitation#[A-Za-z0-9_-]{43}$`));
      expect(service.services.mailer.recent(5).map((mail) => mail.text).join('\n')).toContain(url);
      // The demo's operators read its outbox in the dashboard.
      const operatorEmail = uniqueEmail('operator');
      await service.admin.users.create({ email: operatorEmail, password: PASSWORD, platformOperator: true });
      const outbox = (await (await login(service, operatorEmail)).call('users.outbox')).body.result.data;
      expect(outbox.local).toBe(true);
      expect(outbox.mails.map((mail: { text: string }) => mail.text).join('\n')).toContain(url);
    } finally {
      await service.stop();
    }
  });
});
