/**
 * People prove their e-mail: invitations and password resets reach only the
 * address they are for, through a real SMTP server (smtp-server on an
 * ephemeral port). In production nobody who invites sees a link, nobody joins
 * without accepting, and inviting tells nothing about who has an account.
 * Without SMTP, the embedded demo writes mail to a local outbox.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service';
import { onPostgres } from '../support/database';
import { createTenant } from '../support/tenant';
import { eventually } from '../support/outbox-events';
import { internalCall, login, PASSWORD, uniqueEmail } from '../support/dashboard-sessions';
import { decoded, linkIn, startSmtpInbox, type SmtpInbox } from '../support/smtp-inbox';

let inbox: SmtpInbox;
const mailsTo = (address: string) => inbox.to(address);

let service: TestService;

beforeAll(async () => {
  inbox = await startSmtpInbox();
  service = await startTestService({
    env: {
      NODE_ENV: 'production',
      MASTER_KEY: randomBytes(32).toString('base64'),
      // Production's start-up check wants one; the test's own database is used.
      DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused',
      SMTP_URL: inbox.url,
      SMTP_FROM: 'dashboard@payments.example.com',
    },
  });
}, 60_000);
afterAll(async () => {
  await service?.stop();
  await inbox?.close();
});

async function owner(organizationName: string) {
  const tenant = await createTenant(service);
  const email = uniqueEmail(organizationName);
  await service.admin.users.create({ email, password: PASSWORD });
  await service.admin.members.add({ organizationId: tenant.organizationId, email, role: 'owner' });
  return { tenant, email, browser: await login(service, email) };
}

const shapeOf = (value: unknown): unknown =>
  value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shapeOf(v)])) : typeof value;

describe('invitations in production', () => {
  it('the pre-registration takeover fails: the attacker never sees a link, and the victim joins only their own organization', async () => {
    const victim = uniqueEmail('victim');
    const attacker = await owner('attacker');
    const lure = await attacker.browser.call('members.invite', { organizationId: attacker.tenant.organizationId, email: victim, role: 'viewer' });
    expect(lure.status).toBe(200);
    expect(lure.body.result.data).toMatchObject({ mailed: true, invitationUrl: null });
    expect(JSON.stringify(lure.body)).not.toMatch(/invitation#/);

    // The victim's real organization invites the same address: nobody is added before accepting.
    const real = await owner('real');
    const invited = await real.browser.call('members.invite', { organizationId: real.tenant.organizationId, email: victim, role: 'owner' });
    expect(invited.body.result.data).toMatchObject({ mailed: true, invitationUrl: null });
    expect((await real.browser.call('members.list', { organizationId: real.tenant.organizationId })).body.result.data.members).toHaveLength(1);

    // Only the victim's mailbox has the links; the victim accepts the real one.
    await eventually(async () => (mailsTo(victim).length === 2 ? true : undefined), 10_000, 'two invitation mails');
    const realMail = mailsTo(victim).find((mail) => decoded(mail.raw).includes('as owner'))!;
    expect(decoded(realMail.raw)).toMatch(/^From: dashboard@payments\.example\.com/m);
    const token = linkIn(realMail, 'invitation')!;
    const accepted = await internalCall(service, 'auth.acceptInvitation', { token, password: 'the victim chose this one' }, { mutation: true });
    expect(accepted.status).toBe(200);
    expect(accepted.body.result.data.memberships).toEqual([expect.objectContaining({ organizationId: real.tenant.organizationId, role: 'owner' })]);

    // The attacker's organization has no member but its owner, and the attacker is nowhere in the real one.
    expect((await attacker.browser.call('members.list', { organizationId: attacker.tenant.organizationId })).body.result.data.members).toHaveLength(1);
    const realMembers = (await real.browser.call('members.list', { organizationId: real.tenant.organizationId })).body.result.data.members;
    expect(realMembers.map((m: { email: string }) => m.email).sort()).toEqual([real.email.toLowerCase(), victim.toLowerCase()].sort());
    expect(realMembers.map((m: { email: string }) => m.email)).not.toContain(attacker.email.toLowerCase());
  });

  it('answers the same for an address with an account and one without', async () => {
    const inviter = await owner('inviter');
    const known = uniqueEmail('known');
    await service.admin.users.create({ email: known, password: PASSWORD });
    const unknown = uniqueEmail('unknown');
    const replies = [];
    for (const email of [known, unknown]) {
      replies.push(await inviter.browser.call('members.invite', { organizationId: inviter.tenant.organizationId, email, role: 'developer' }));
    }
    const [a, b] = replies;
    expect(a!.status).toBe(b!.status);
    expect(shapeOf(a!.body)).toEqual(shapeOf(b!.body));
    expect(a!.body.result.data.mailed).toBe(true);
    expect(b!.body.result.data.mailed).toBe(true);
    expect(a!.body.result.data.invitation.email).toBe(known.toLowerCase());
    // The known address was not added: it is an invitation like the other.
    const members = (await inviter.browser.call('members.list', { organizationId: inviter.tenant.organizationId })).body.result.data;
    expect(members.members).toHaveLength(1);
    expect(members.invitations.map((i: { email: string }) => i.email).sort()).toEqual([known.toLowerCase(), unknown.toLowerCase()].sort());
  });

  it('an existing account accepts only logged in as that address', async () => {
    const inviter = await owner('second-org');
    const person = uniqueEmail('person');
    await service.admin.users.create({ email: person, password: PASSWORD });
    await inviter.browser.call('members.invite', { organizationId: inviter.tenant.organizationId, email: person, role: 'developer' });
    const mail = await eventually(async () => mailsTo(person)[0], 10_000, 'the invitation mail');
    const token = linkIn(mail, 'invitation')!;
    const info = await internalCall(service, 'auth.invitation', { token }, { mutation: false });
    expect(info.body.result.data).toMatchObject({ email: person.toLowerCase(), role: 'developer', hasAccount: true });
    expect((await internalCall(service, 'auth.acceptInvitation', { token, password: PASSWORD }, { mutation: true })).status).toBe(401);
    const signedIn = await login(service, person);
    const accepted = await signedIn.call('auth.acceptInvitation', { token });
    expect(accepted.status).toBe(200);
    expect(accepted.body.result.data.memberships).toEqual([expect.objectContaining({ organizationId: inviter.tenant.organizationId, role: 'developer' })]);
  });
});

describe('forgot password', () => {
  it('mails a single-use link to the account, ends its sessions, and answers alike for an unknown address', async () => {
    const email = uniqueEmail('forgetful');
    await service.admin.users.create({ email, password: PASSWORD });
    const before = await login(service, email);

    const asked = await internalCall(service, 'auth.requestPasswordReset', { email }, { mutation: true });
    const unknown = await internalCall(service, 'auth.requestPasswordReset', { email: uniqueEmail('nobody') }, { mutation: true });
    expect(asked.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(asked.body).toEqual(unknown.body);

    const mail = await eventually(async () => mailsTo(email)[0], 10_000, 'the reset mail');
    const token = linkIn(mail, 'reset-password')!;
    expect(token).toBeTruthy();
    const reset = await internalCall(service, 'auth.resetPassword', { token, password: 'a brand new password' }, { mutation: true });
    expect(reset.status).toBe(200);
    expect((await before.call('auth.sessions')).status).toBe(401);
    expect((await internalCall(service, 'auth.login', { email, password: PASSWORD }, { mutation: true })).status).toBe(401);
    await login(service, email, 'a brand new password');
    const again = await internalCall(service, 'auth.resetPassword', { token, password: 'yet another password' }, { mutation: true });
    expect(again.status).toBe(401);
    // The token is only in the mail: not in the database, not in the logs.
    expect(service.logs()).not.toContain(token);
    const rows = await service.services.db.fork().getConnection().execute<{ token_hash: string }[]>('select token_hash from password_resets');
    expect(rows.map((row) => row.token_hash)).not.toContain(token);
  });

  it('throttles reset requests for one address', async () => {
    const email = uniqueEmail('flooded');
    await service.admin.users.create({ email, password: PASSWORD });
    const replies = [];
    for (let i = 0; i < 7; i++) replies.push((await internalCall(service, 'auth.requestPasswordReset', { email }, { mutation: true })).status);
    expect(replies.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(replies.slice(5)).toEqual([429, 429]);
  });
});

// Only the embedded demo (PGlite) shows the link; elsewhere inviting without SMTP is refused (invitation-delivery.test.ts).
describe.skipIf(onPostgres)('without SMTP, in the embedded demo', () => {
  it('writes mails to a private outbox under DATA_DIR, and shows the link to whoever invited', async () => {
    const local = await startTestService({ env: { SEED_DEMO: 'true' } });
    try {
      const tenant = await createTenant(local);
      const invited = await local.admin.members.invite({ organizationId: tenant.organizationId, email: uniqueEmail('demo'), role: 'viewer' });
      expect(invited.mailed).toBe(true);
      const token = invited.invitationUrl!.split('#')[1]!;
      const folder = join(local.dataDir, 'outbox');
      const [file] = readdirSync(folder);
      expect(statSync(join(folder, file!)).mode & 0o777).toBe(0o600);
      expect(readFileSync(join(folder, file!), 'utf8')).toContain(`/dashboard/invitation#${token}`);
    } finally {
      await local.stop();
    }
  });
});
