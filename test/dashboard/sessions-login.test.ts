/**
 * Dashboard log-in over HTTP: the session cookie's attributes, the CSRF token
 * every cookie call must carry, log-out and revoked sessions, the log-in
 * throttle, and passwords never stored or logged in plaintext.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { User } from '../../server/db/entities';
import { verifyPassword } from '../../server/domain/people/passwords';
import { startTestService, type TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';
import { internalCall, login, member, PASSWORD, uniqueEmail } from '../support/dashboard-sessions';

let service: TestService;
let tenant: TestTenant;

beforeAll(async () => {
  service = await startTestService();
  tenant = await createTenant(service);
});
afterAll(async () => service?.stop());

describe('dashboard log-in', () => {
  it('logs in with e-mail and password: an HttpOnly, SameSite=Strict session cookie, a CSRF token, the memberships', async () => {
    const email = uniqueEmail('Owner');
    await service.admin.users.create({ email, password: PASSWORD });
    await service.admin.members.add({ organizationId: tenant.organizationId, email, role: 'owner' });

    // The e-mail is matched whatever its case and surrounding spaces.
    const reply = await internalCall(service, 'auth.login', { email: `  ${email.toUpperCase()}`, password: PASSWORD }, { mutation: true });
    expect(reply.status).toBe(200);
    const cookie = reply.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^dashboard_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Strict/);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).not.toMatch(/; Secure/); // plain HTTP here: a Secure cookie would never come back
    const answer = reply.body.result.data;
    expect(answer.user).toMatchObject({ email: email.toLowerCase(), platformOperator: false });
    expect(answer.csrfToken).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(answer.memberships).toEqual([{ organizationId: tenant.organizationId, organizationName: 'Test organization', role: 'owner' }]);

    // After a reload the page asks who is logged in, with the cookie only.
    const session = await internalCall(service, 'auth.session', undefined, { mutation: false, headers: { cookie: cookie.split(';')[0]! } });
    expect(session.status).toBe(200);
    expect(session.body.result.data).toEqual(answer);
  });

  it('says nobody is logged in without a cookie, and refuses other calls with 401 in the contract shape', async () => {
    const session = await internalCall(service, 'auth.session', undefined, { mutation: false });
    expect(session.status).toBe(200);
    expect(session.body.result.data).toBeNull();

    const list = await internalCall(service, 'organizations.list', undefined, { mutation: false });
    expect(list.status).toBe(401);
    expect(list.body).toEqual({ error: 'unauthorized', message: expect.any(String) });
  });

  it('answers a wrong password and an unknown e-mail alike: 401 "Wrong e-mail or password."', async () => {
    const email = uniqueEmail('wrong');
    await service.admin.users.create({ email, password: PASSWORD });
    const wrong = await internalCall(service, 'auth.login', { email, password: 'not the password' }, { mutation: true });
    const unknown = await internalCall(service, 'auth.login', { email: uniqueEmail('nobody'), password: PASSWORD }, { mutation: true });
    for (const reply of [wrong, unknown]) {
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual({ error: 'unauthorized', message: 'Wrong e-mail or password.' });
      expect(reply.headers.get('set-cookie')).toBeNull();
    }
  });

  it('refuses a malformed log-in with 400 invalid_input, never a 500', async () => {
    const reply = await internalCall(service, 'auth.login', { email: 'not an e-mail', password: '' }, { mutation: true });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe('invalid_input');
    expect(reply.body.issues.map((issue: { path: string[] }) => issue.path[0]).sort()).toEqual(['email', 'password']);
  });
});

describe('CSRF and origin', () => {
  it('refuses a cookie call without the CSRF token, or with a wrong one: 403 forbidden', async () => {
    const browser = await member(service, tenant.organizationId, 'developer');
    const create = { environmentId: tenant.environmentId, name: 'csrf' };
    const without = await internalCall(service, 'apiKeys.create', create, { mutation: true, headers: { cookie: browser.cookie } });
    expect(without.status).toBe(403);
    expect(without.body).toEqual({ error: 'forbidden', message: expect.stringContaining('CSRF') });
    const wrong = await browser.call('apiKeys.create', create, { headers: { 'x-csrf-token': 'x'.repeat(43) } });
    expect(wrong.status).toBe(403);
    // Queries too: a read is data another site must not get either.
    const read = await internalCall(service, 'apiKeys.list', { environmentId: tenant.environmentId }, { mutation: false, headers: { cookie: browser.cookie } });
    expect(read.status).toBe(403);

    const keys = await service.admin.apiKeys.list({ environmentId: tenant.environmentId });
    expect(keys.some((key) => key.name === 'csrf')).toBe(false);
    expect((await browser.call('apiKeys.create', create)).status).toBe(200);
  });

  it('refuses a cookie call from another origin, even with the right token', async () => {
    const browser = await member(service, tenant.organizationId, 'developer');
    const reply = await browser.call('apiKeys.list', { environmentId: tenant.environmentId }, { headers: { origin: 'https://evil.example' } });
    expect(reply.status).toBe(403);
    expect(reply.body.error).toBe('forbidden');
    const own = await browser.call('apiKeys.list', { environmentId: tenant.environmentId }, { headers: { origin: new URL(service.url).origin } });
    expect(own.status).toBe(200);
    const crossSiteLogin = await internalCall(service, 'auth.login', { email: 'a@example.com', password: PASSWORD }, { mutation: true, headers: { origin: 'https://evil.example' } });
    expect(crossSiteLogin.status).toBe(403);
  });

  it('a CSRF token of one session does not serve another', async () => {
    const first = await member(service, tenant.organizationId, 'viewer');
    const second = await member(service, tenant.organizationId, 'viewer');
    const reply = await first.call('organizations.list', undefined, { headers: { 'x-csrf-token': second.csrfToken } });
    expect(reply.status).toBe(403);
  });
});

describe('sessions', () => {
  it('logs out: the cookie is cleared and the session no longer serves', async () => {
    const browser = await member(service, tenant.organizationId, 'viewer');
    expect((await browser.call('organizations.list')).status).toBe(200);
    const out = await browser.call('auth.logout');
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^dashboard_session=;.*Expires=Thu, 01 Jan 1970/);
    const after = await browser.call('organizations.list');
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: 'unauthorized', message: 'Your dashboard session has ended; log in again.' });
  });

  it('lists the user\'s sessions and revokes another one, which is refused at once', async () => {
    const email = uniqueEmail('two-devices');
    await service.admin.users.create({ email, password: PASSWORD });
    await service.admin.members.add({ organizationId: tenant.organizationId, email, role: 'viewer' });
    const laptop = await login(service, email);
    const phone = await login(service, email);
    const sessions = (await laptop.call('auth.sessions')).body.result.data as { id: string; current: boolean }[];
    expect(sessions).toHaveLength(2);
    expect(sessions.filter((session) => session.current)).toHaveLength(1);
    const other = sessions.find((session) => !session.current)!;

    // Someone else's session is not found.
    const stranger = await member(service, tenant.organizationId, 'owner');
    expect((await stranger.call('auth.revokeSession', { sessionId: other.id })).status).toBe(404);

    expect((await laptop.call('auth.revokeSession', { sessionId: other.id })).status).toBe(200);
    expect((await phone.call('organizations.list')).status).toBe(401);
    expect((await laptop.call('organizations.list')).status).toBe(200);
  });

  it('a role change applies to the next call; disabling a user ends their sessions', async () => {
    const email = uniqueEmail('demoted');
    await service.admin.users.create({ email, password: PASSWORD });
    await service.admin.members.add({ organizationId: tenant.organizationId, email, role: 'developer' });
    const browser = await login(service, email);
    expect((await browser.call('apiKeys.create', { environmentId: tenant.environmentId })).status).toBe(200);
    await service.admin.members.setRole({ organizationId: tenant.organizationId, userId: browser.userId, role: 'viewer' });
    expect((await browser.call('apiKeys.create', { environmentId: tenant.environmentId })).status).toBe(403);

    await service.admin.users.setDisabled({ userId: browser.userId, disabled: true });
    expect((await browser.call('organizations.list')).status).toBe(401);
    const again = await internalCall(service, 'auth.login', { email, password: PASSWORD }, { mutation: true });
    expect(again.status).toBe(401);
  });

  it('changing the password ends the other sessions, keeps this one', async () => {
    const email = uniqueEmail('new-password');
    await service.admin.users.create({ email, password: PASSWORD });
    const here = await login(service, email);
    const elsewhere = await login(service, email);
    const newPassword = 'another long passphrase';
    const wrong = await here.call('auth.changePassword', { currentPassword: 'nope nope nope', newPassword });
    expect(wrong.status).toBe(400);
    const tooShort = await here.call('auth.changePassword', { currentPassword: PASSWORD, newPassword: 'short' });
    expect(tooShort.status).toBe(400);
    expect((await here.call('auth.changePassword', { currentPassword: PASSWORD, newPassword })).status).toBe(200);
    expect((await elsewhere.call('auth.session')).body.result.data).toBeNull();
    expect((await here.call('auth.sessions')).status).toBe(200);
    await login(service, email, newPassword);
  });

  it('a session cannot guess its own password faster than the log-in page: wrong current passwords are throttled', async () => {
    const email = uniqueEmail('borrowed-session');
    await service.admin.users.create({ email, password: PASSWORD });
    const borrowed = await login(service, email);
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await borrowed.call('auth.changePassword', { currentPassword: `guess number ${attempt}`, newPassword: 'taken over for good' })).status).toBe(400);
    }
    const blocked = await borrowed.call('auth.changePassword', { currentPassword: PASSWORD, newPassword: 'taken over for good' });
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual({ error: 'rate_limited', message: expect.stringMatching(/Too many wrong passwords/) });
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(60);
    // The password did not change.
    const stored = await service.services.db.fork().findOneOrFail(User, { email });
    expect(await verifyPassword(PASSWORD, stored.passwordHash)).toBe(true);
  });
});

describe('throttle and secrets', () => {
  it('throttles guessing: after 5 failures for one e-mail, 429 rate_limited with Retry-After, even with the right password', async () => {
    const email = uniqueEmail('guessed');
    await service.admin.users.create({ email, password: PASSWORD });
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await internalCall(service, 'auth.login', { email, password: `guess number ${attempt}` }, { mutation: true })).status).toBe(401);
    }
    const blocked = await internalCall(service, 'auth.login', { email, password: PASSWORD }, { mutation: true });
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual({ error: 'rate_limited', message: expect.stringMatching(/Too many failed log-ins/) });
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(60);
    // Another account from the same address is not locked by it.
    const other = uniqueEmail('neighbour');
    await service.admin.users.create({ email: other, password: PASSWORD });
    await login(service, other);
  });

  it('keeps only a scrypt hash of passwords, and never logs passwords, cookies or CSRF tokens', async () => {
    const email = uniqueEmail('at-rest');
    const password = 'a password nobody should ever see';
    await service.admin.users.create({ email, password });
    const browser = await login(service, email, password);
    await browser.call('organizations.list');
    const em = service.services.db.fork();
    const rows = await em.getConnection().execute<{ password_hash: string }[]>(`select password_hash from users where email = ?`, [email]);
    expect(rows[0]!.password_hash).toMatch(/^scrypt\$15\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(rows[0]!.password_hash).not.toContain(password);
    const tokens = await em.getConnection().execute<{ token_hash: string }[]>(`select token_hash from dashboard_sessions`);
    const token = browser.cookie.split('=')[1]!;
    expect(tokens.map((row) => row.token_hash)).not.toContain(token);
    const logs = service.logs();
    for (const secret of [password, token, browser.csrfToken]) expect(logs).not.toContain(secret);
  });
});
