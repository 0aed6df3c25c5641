/**
 * The operator CLI's `users` commands: the first user is created without the
 * dashboard (the password from stdin, never a flag), given a role, and logs in.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../support/cli';
import { startTestService, type TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';
import { internalCall, login, member, uniqueEmail } from '../support/dashboard-sessions';
import { startPeopleMail, type PeopleMail } from '../support/people-mail';

const BIN = fileURLToPath(new URL('../../bin/payments-admin.js', import.meta.url));

let service: TestService;
let tenant: TestTenant;
let mail: PeopleMail;

beforeAll(async () => {
  mail = await startPeopleMail();
  service = await startTestService({ env: mail.env });
  tenant = await createTenant(service);
});
afterAll(async () => {
  await service?.stop();
  await mail?.close();
});

/** The CLI with this text on its stdin (as `… --password-stdin < file` gives it). */
function cliWithStdin(args: string[], stdin: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, '--url', service.url, '--token', service.adminToken, '--json', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

describe('payments-admin users', () => {
  it('creates an operator from a password on stdin; it logs in to the dashboard; the password is printed nowhere', async () => {
    const email = uniqueEmail('first-operator');
    const password = 'typed into a file, not a flag';
    const created = await cliWithStdin(['users', 'create', '--email', email, '--operator', '--password-stdin'], `${password}\n`);
    expect(created.code, created.stderr).toBe(0);
    const user = JSON.parse(created.stdout);
    expect(user).toMatchObject({ email, platformOperator: true, disabled: false });
    expect(created.stdout + created.stderr).not.toContain(password);

    const browser = await login(service, email, password);
    const organizations = await browser.call('organizations.list');
    expect(organizations.status).toBe(200);
    expect(organizations.body.result.data.map((o: { id: string }) => o.id)).toContain(tenant.organizationId);
  });

  it('refuses a short password (exit 2) and an e-mail already taken (exit 6)', async () => {
    const email = uniqueEmail('short');
    const short = await cliWithStdin(['users', 'create', '--email', email, '--password-stdin'], 'short\n');
    expect(short.code).toBe(2);
    expect(JSON.parse(short.stderr).message).toMatch(/12 to 256 characters/);

    await cliWithStdin(['users', 'create', '--email', email, '--password-stdin'], 'long enough password\n');
    const again = await cliWithStdin(['users', 'create', '--email', email.toUpperCase(), '--password-stdin'], 'long enough password\n');
    expect(again.code).toBe(6);
  });

  it('adds an existing user to an organization at once (operator), and invites someone new (the link mailed; also shown in the embedded demo)', async () => {
    const email = uniqueEmail('developer');
    await cliWithStdin(['users', 'create', '--email', email, '--password-stdin'], 'long enough password\n');
    const added = await cli(service, ['users', 'add-member', '--org', tenant.organizationId, '--email', email, '--role', 'developer']);
    expect(added.code, added.stderr).toBe(0);
    expect(added.json).toMatchObject({ email, role: 'developer' });

    const newcomer = uniqueEmail('newcomer');
    const invited = await cli(service, ['users', 'invite', '--org', tenant.organizationId, '--email', newcomer, '--role', 'viewer']);
    expect(invited.json).toMatchObject({ mailed: true, invitation: { role: 'viewer' } });
    const link = await mail.link(service, newcomer, 'invitation');
    expect(link).toMatch(new RegExp(`^${service.url}/dashboard/invitation#[A-Za-z0-9_-]{43}$`));
    expect(invited.json.invitationUrl).toBe(mail.showsLink ? link : null);
    const token = link.split('#')[1];

    const members = await cli(service, ['users', 'members', tenant.organizationId]);
    expect(members.json.members).toEqual([expect.objectContaining({ email, role: 'developer' })]);
    expect(members.json.invitations).toHaveLength(1);
    expect(JSON.stringify(members.json)).not.toContain(token);

    // The newcomer accepts with a password of their choice, is logged in, and the link is spent.
    const accepted = await internalCall(service, 'auth.acceptInvitation', { token, password: 'my own new password' }, { mutation: true });
    expect(accepted.status).toBe(200);
    expect(accepted.body.result.data.memberships).toEqual([expect.objectContaining({ organizationId: tenant.organizationId, role: 'viewer' })]);
    expect(accepted.headers.get('set-cookie')).toMatch(/^dashboard_session=/);
    const twice = await internalCall(service, 'auth.acceptInvitation', { token, password: 'my own new password' }, { mutation: true });
    expect(twice.status).toBe(401);
    expect(twice.body).toEqual({ error: 'unauthorized', message: 'This invitation link is not valid any more; ask for a new one.' });
  });

  it('an invitation to an e-mail that has an account: accepted only logged in as that account, and a refusal leaves the link unused', async () => {
    const email = uniqueEmail('late-account');
    await service.admin.members.invite({ organizationId: tenant.organizationId, email, role: 'viewer' });
    const token = (await mail.link(service, email, 'invitation')).split('#')[1]!;
    await service.admin.users.create({ email, password: 'the real long password' });
    // Without a session, even with the account's password: refused.
    const anonymous = await internalCall(service, 'auth.acceptInvitation', { token, password: 'the real long password' }, { mutation: true });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.message).toMatch(/already has an account: log in as/);
    // Logged in as someone else: refused.
    const stranger = await member(service, null, 'viewer');
    const asStranger = await stranger.call('auth.acceptInvitation', { token });
    expect(asStranger.status).toBe(401);
    expect((await service.admin.members.list({ organizationId: tenant.organizationId })).invitations).toEqual(
      expect.arrayContaining([expect.objectContaining({ email, role: 'viewer' })]),
    );
    // Logged in as the invited address: joins.
    const owner = await login(service, email, 'the real long password');
    const accepted = await owner.call('auth.acceptInvitation', { token });
    expect(accepted.status).toBe(200);
    expect(accepted.body.result.data.memberships).toEqual([expect.objectContaining({ organizationId: tenant.organizationId, role: 'viewer' })]);
  });

  it('never demotes or removes the last owner', async () => {
    const email = uniqueEmail('only-owner');
    const user = await service.admin.users.create({ email, password: 'long enough password' });
    const organization = await service.admin.organizations.create({ name: 'One owner' });
    await service.admin.members.add({ organizationId: organization.id, email, role: 'owner' });
    const owner = await login(service, email, 'long enough password');
    const demote = await owner.call('members.setRole', { organizationId: organization.id, userId: user.id, role: 'viewer' });
    expect(demote.status).toBe(409);
    expect(demote.body.message).toMatch(/last owner/);
    expect((await owner.call('members.remove', { organizationId: organization.id, userId: user.id })).status).toBe(409);

    const disabled = await cli(service, ['users', 'disable', user.id]);
    expect(disabled.json).toMatchObject({ id: user.id, disabled: true });
    expect((await owner.call('members.list', { organizationId: organization.id })).status).toBe(401);
  });
});
