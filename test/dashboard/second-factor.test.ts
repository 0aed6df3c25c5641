/**
 * The TOTP second factor over HTTP, as the dashboard calls it: enrolment
 * (secret sealed at rest, recovery codes hashed and shown once), the log-in's
 * second step (challenge, code or recovery code, replay and brute force
 * refused, a wrong password answered as before), an organization that
 * requires it (and only that one refused), an owner who cannot lock
 * themself out, and the operator's reset from the CLI.
 * Codes are computed by test/support/totp.ts, written apart from the server's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditEntry, DashboardSession, User } from '../../server/db/entities';
import { hotp, matchingStep } from '../../server/domain/people/second-factor-totp';
import { cli } from '../support/cli';
import { startTestService, type TestService } from '../support/service';
import { createTenant, type TestTenant } from '../support/tenant';
import { browserFor, internalCall, login, PASSWORD, uniqueEmail, type Browser } from '../support/dashboard-sessions';
import { totp, totpAtStep } from '../support/totp';
import { enrolSecondFactor } from '../support/second-factor';

const STEP = 30_000;
/** The service's clock: moved a step on whenever a test needs a code not yet used. */
let clock = Date.now();
const tick = (steps = 1) => (clock += steps * STEP);

let service: TestService;
let tenant: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  service = await startTestService({ now: () => new Date(clock) });
  tenant = await createTenant(service);
  other = await createTenant(service);
}, 120_000);
afterAll(async () => service?.stop());

const mutate = (browser: Browser, procedure: string, input?: unknown) => browser.call(procedure, input, { mutation: true });

async function newMember(organizationId: string | null, role: 'owner' | 'developer' | 'viewer' = 'owner', extra?: { organizationId: string; role: 'owner' | 'developer' | 'viewer' }) {
  const email = uniqueEmail(`2fa-${role}`);
  await service.admin.users.create({ email, password: PASSWORD });
  if (organizationId) await service.admin.members.add({ organizationId, email, role });
  if (extra) await service.admin.members.add({ organizationId: extra.organizationId, email, role: extra.role });
  return { email, browser: await login(service, email) };
}

/** Enrols the browser's user: answers the secret and the recovery codes. */
const enrol = (browser: Browser) => enrolSecondFactor(browser, tick);

const passwordStep = (email: string, password = PASSWORD) => internalCall(service, 'auth.login', { email, password }, { mutation: true });
const secondStep = (input: unknown) => internalCall(service, 'auth.verifySecondFactor', input, { mutation: true });

/** Logs in with the password and then the code (or recovery code): the browser of the new session. */
async function loginWithCode(email: string, proof: { code: string } | { recoveryCode: string }) {
  const first = await passwordStep(email);
  expect(first.status).toBe(200);
  const reply = await secondStep({ challenge: first.body.result.data.challenge, ...proof });
  if (reply.status !== 200) return { reply, browser: null };
  const cookie = reply.headers.get('set-cookie')!.split(';')[0]!;
  return { reply, browser: browserFor(service, cookie, reply.body.result.data.csrfToken, reply.body.result.data.user.id) };
}

describe('TOTP', () => {
  it('matches the RFC 6238 SHA-1 test vectors, in the server and in the tests alike', () => {
    const key = Buffer.from('12345678901234567890');
    const vectors: [number, string][] = [
      [59, '94287082'],
      [1111111109, '07081804'],
      [1111111111, '14050471'],
      [1234567890, '89005924'],
      [2000000000, '69279037'],
      [20000000000, '65353130'],
    ];
    for (const [seconds, code] of vectors) {
      const step = Math.floor(seconds / 30);
      expect(totpAtStep(key, step, 8)).toBe(code);
      expect(hotp(key, step)).toBe(code.slice(-6));
    }
    // ±1 step accepted, 2 steps off refused; a code that is not 6 digits never matches.
    const secret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ'; // base32 of the same key
    const at = 1111111111 * 1000;
    expect(matchingStep(secret, totp(secret, at - STEP), new Date(at))).toBe(Math.floor(at / STEP) - 1);
    expect(matchingStep(secret, totp(secret, at + STEP), new Date(at))).toBe(Math.floor(at / STEP) + 1);
    expect(matchingStep(secret, totp(secret, at - 2 * STEP), new Date(at))).toBeNull();
    expect(matchingStep(secret, '1234567', new Date(at))).toBeNull();
  });
});

describe('enrolment', () => {
  it('a 160-bit secret sealed at rest and an otpauth URI; confirmed by a current code; ten recovery codes shown once, kept hashed', async () => {
    const { email, browser } = await newMember(tenant.organizationId, 'developer');
    // The password again first: a borrowed session cannot put its own phone on the account.
    const unproven = await mutate(browser, 'auth.startSecondFactor', { password: 'not the password at all' });
    expect(unproven.status).toBe(400);
    expect(unproven.body).toMatchObject({ error: 'invalid_input', message: 'The password is wrong.' });
    expect((await mutate(browser, 'auth.startSecondFactor')).body.error).toBe('invalid_input');
    expect((await service.services.db.fork().findOneOrFail(User, { email })).secondFactorPendingSealed).toBeNull();
    const started = await mutate(browser, 'auth.startSecondFactor', { password: PASSWORD });
    const { secret, uri } = started.body.result.data;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/); // 20 bytes
    expect(uri).toBe(`otpauth://totp/Payments%20dashboard:${encodeURIComponent(email)}?secret=${secret}&issuer=Payments+dashboard&algorithm=SHA1&digits=6&period=30`);

    const em = service.services.db.fork();
    const row = await em.findOneOrFail(User, { email });
    expect(row.secondFactorPendingSealed).toMatch(/^v1\./);
    expect(row.secondFactorPendingSealed).not.toContain(secret);
    expect(row.secondFactorSealed).toBeNull();
    // Not on yet: logging in still needs the password only.
    expect((await passwordStep(email)).body.result.data.csrfToken).toBeTruthy();

    const wrong = await mutate(browser, 'auth.confirmSecondFactor', { code: totp(secret, clock - 5 * STEP) });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_input');
    expect((await mutate(browser, 'auth.confirmSecondFactor', { code: 'abcdef' })).status).toBe(400);

    tick();
    const confirmed = await mutate(browser, 'auth.confirmSecondFactor', { code: totp(secret, clock) });
    expect(confirmed.status).toBe(200);
    const codes = confirmed.body.result.data.recoveryCodes as string[];
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);

    const stored = await service.services.db.fork().findOneOrFail(User, { email });
    expect(stored.secondFactorSealed).toMatch(/^v1\./);
    expect(stored.recoveryCodeHashes).toHaveLength(10);
    expect(JSON.stringify(stored)).not.toContain(codes[0]!.replace('-', ''));
    expect(JSON.stringify(stored)).not.toContain(secret);

    const status = await browser.call('auth.secondFactor');
    expect(status.body.result.data).toMatchObject({ enabled: true, recoveryCodesLeft: 10 });
    // Shown once: nothing answers the codes again.
    expect(JSON.stringify(status.body)).not.toContain(codes[0]);
    // This session proved the code; enrolling again needs disabling first.
    expect((await browser.call('auth.session')).body.result.data.secondFactor).toMatchObject({ enabled: true, sessionProven: true });
    expect((await mutate(browser, 'auth.startSecondFactor', { password: PASSWORD })).body.error).toBe('conflict');
  });

  it('ends the sessions opened before enrolling (they never proved it)', async () => {
    const { email, browser } = await newMember(tenant.organizationId, 'viewer');
    const elsewhere = await login(service, email);
    await enrol(browser);
    expect((await elsewhere.call('auth.sessions')).status).toBe(401);
    expect((await browser.call('auth.sessions')).status).toBe(200);
  });
});

describe('log-in second step', () => {
  it('a right password opens no session: a challenge; the code opens it; the challenge is single use', async () => {
    const { email, browser } = await newMember(tenant.organizationId, 'developer');
    const { secret } = await enrol(browser);

    const first = await passwordStep(email);
    expect(first.status).toBe(200);
    expect(first.headers.get('set-cookie')).toBeNull();
    expect(first.body.result.data).toEqual({ secondFactorRequired: true, challenge: expect.any(String), expiresAt: new Date(clock + 5 * 60_000).toISOString() });
    const challenge = first.body.result.data.challenge;

    tick();
    const code = totp(secret, clock);
    const verified = await secondStep({ challenge, code });
    expect(verified.status).toBe(200);
    expect(verified.headers.get('set-cookie')).toMatch(/^dashboard_session=[A-Za-z0-9_-]{43};.*HttpOnly/);
    expect(verified.body.result.data).toMatchObject({ user: { email }, method: 'totp', recoveryCodesLeft: 10, secondFactor: { enabled: true, sessionProven: true } });
    const cookie = verified.headers.get('set-cookie')!.split(';')[0]!;
    const session = browserFor(service, cookie, verified.body.result.data.csrfToken, verified.body.result.data.user.id);
    expect((await session.call('projects.list', { organizationId: tenant.organizationId })).status).toBe(200);
    const row = await service.services.db.fork().findOneOrFail(DashboardSession, { user: verified.body.result.data.user.id, revokedAt: null }, { orderBy: { createdAt: 'desc' } });
    expect(row.secondFactorAt).not.toBeNull();

    // The challenge is spent; the same code (its time step) is not accepted again either.
    tick();
    expect((await secondStep({ challenge, code: totp(secret, clock) })).status).toBe(401);
    const again = await passwordStep(email);
    const replay = await secondStep({ challenge: again.body.result.data.challenge, code });
    expect(replay.status).toBe(400);
    expect(replay.body.message).toMatch(/already used/);
    // A made-up challenge: 401, the same as an expired one.
    expect((await secondStep({ challenge: `${verified.body.result.data.user.id}.forged`, code: totp(secret, clock) })).status).toBe(401);
  });

  it('a challenge lasts five minutes', async () => {
    const { email, browser } = await newMember(null);
    const { secret } = await enrol(browser);
    const first = await passwordStep(email);
    tick(11); // 5.5 minutes
    const late = await secondStep({ challenge: first.body.result.data.challenge, code: totp(secret, clock) });
    expect(late.status).toBe(401);
    expect(late.body).toEqual({ error: 'unauthorized', message: 'This log-in has expired; enter your e-mail and password again.' });
  });

  it('a recovery code opens the session once and says how many remain', async () => {
    const { email, browser } = await newMember(null);
    const { recoveryCodes } = await enrol(browser);
    const used = await loginWithCode(email, { recoveryCode: recoveryCodes[3]!.toUpperCase() });
    expect(used.reply.status).toBe(200);
    expect(used.reply.body.result.data).toMatchObject({ method: 'recovery_code', recoveryCodesLeft: 9 });
    const again = await loginWithCode(email, { recoveryCode: recoveryCodes[3]! });
    expect(again.reply.status).toBe(400);
    expect(again.reply.body.message).toMatch(/wrong or already used/);
    expect((await used.browser!.call('auth.secondFactor')).body.result.data.recoveryCodesLeft).toBe(9);
  });

  it('wrong codes are throttled like passwords: after five, even the right code waits (429)', async () => {
    const { email, browser } = await newMember(null);
    const { secret } = await enrol(browser);
    const first = await passwordStep(email);
    const challenge = first.body.result.data.challenge;
    tick();
    const right = totp(secret, clock);
    const wrongCode = right === '000000' ? '111111' : '000000';
    for (let attempt = 0; attempt < 5; attempt++) expect((await secondStep({ challenge, code: wrongCode })).status).toBe(400);
    const blocked = await secondStep({ challenge, code: right });
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('retry-after')).toMatch(/^\d+$/);
    // A right password again does not give the code guesses back.
    const fresh = await passwordStep(email);
    expect(fresh.status).toBe(200);
    expect((await secondStep({ challenge: fresh.body.result.data.challenge, code: right })).status).toBe(429);
  });

  it('a wrong password answers exactly as for a user without a second factor', async () => {
    const withFactor = await newMember(null);
    await enrol(withFactor.browser);
    const without = await newMember(null);
    const a = await passwordStep(withFactor.email, 'not the password at all');
    const b = await passwordStep(without.email, 'not the password at all');
    expect(a.status).toBe(401);
    expect(a.body).toEqual(b.body);
    expect(a.body).toEqual({ error: 'unauthorized', message: 'Wrong e-mail or password.' });
  });

  it('disabling needs the password and a code; regenerating recovery codes needs a code', async () => {
    const { email, browser } = await newMember(null);
    const { secret, recoveryCodes } = await enrol(browser);
    tick();
    const regenerated = await mutate(browser, 'auth.regenerateRecoveryCodes', { code: totp(secret, clock) });
    expect(regenerated.status).toBe(200);
    const fresh = regenerated.body.result.data.recoveryCodes as string[];
    expect(fresh).toHaveLength(10);
    expect(fresh).not.toContain(recoveryCodes[0]);

    tick();
    expect((await mutate(browser, 'auth.disableSecondFactor', { password: 'wrong password', code: totp(secret, clock) })).status).toBe(400);
    // An old recovery code no longer works.
    expect((await mutate(browser, 'auth.disableSecondFactor', { password: PASSWORD, recoveryCode: recoveryCodes[0] })).status).toBe(400);
    const disabled = await mutate(browser, 'auth.disableSecondFactor', { password: PASSWORD, recoveryCode: fresh[0] });
    expect(disabled.status).toBe(200);
    expect((await browser.call('auth.secondFactor')).body.result.data).toMatchObject({ enabled: false, recoveryCodesLeft: 0 });
    expect((await passwordStep(email)).body.result.data.csrfToken).toBeTruthy();
  });
});

describe('an organization that requires a second factor', () => {
  it('an owner cannot require it without one (it would lock them out); with one they can', async () => {
    const owner = await newMember(tenant.organizationId, 'owner');
    const refused = await mutate(owner.browser, 'auth.setOrganizationSecondFactor', { organizationId: tenant.organizationId, required: true });
    expect(refused.status).toBe(412);
    expect(refused.body.message).toMatch(/lock you out/);
    const developer = await newMember(tenant.organizationId, 'developer');
    expect((await mutate(developer.browser, 'auth.setOrganizationSecondFactor', { organizationId: tenant.organizationId, required: true })).status).toBe(403);
    const outsider = await newMember(other.organizationId, 'owner');
    expect((await mutate(outsider.browser, 'auth.setOrganizationSecondFactor', { organizationId: tenant.organizationId, required: true })).status).toBe(404);
  });

  it("refuses that organization's data (and only that one's) to a member without a proven second factor, until they enrol", async () => {
    const organization = await createTenant(service);
    const owner = await newMember(organization.organizationId, 'owner');
    const { secret } = await enrol(owner.browser);
    const member = await newMember(organization.organizationId, 'viewer', { organizationId: other.organizationId, role: 'viewer' });

    const required = await mutate(owner.browser, 'auth.setOrganizationSecondFactor', { organizationId: organization.organizationId, required: true });
    expect(required.status).toBe(200);
    expect(required.body.result.data).toMatchObject({ requireSecondFactor: true, changed: true });

    const refused = await member.browser.call('projects.list', { organizationId: organization.organizationId });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'second_factor_required', message: expect.stringMatching(/requires a second factor/) });
    // Lists across organizations leave it out; the other organization answers as before.
    const listed = (await member.browser.call('organizations.list')).body.result.data as { id: string }[];
    expect(listed.map((o) => o.id)).toEqual([other.organizationId]);
    expect((await member.browser.call('projects.list', { organizationId: other.organizationId })).status).toBe(200);
    const session = (await member.browser.call('auth.session')).body.result.data;
    expect(session.secondFactor).toEqual({ enabled: false, sessionProven: false, requiredBy: [organization.organizationId], missingFor: [organization.organizationId] });

    // The owner, logged in with the code, still sees it.
    expect((await owner.browser.call('projects.list', { organizationId: organization.organizationId })).status).toBe(200);

    // Enrolling proves it in this session: the data is back. Logging in again asks for the code.
    const enrolled = await enrol(member.browser);
    expect((await member.browser.call('projects.list', { organizationId: organization.organizationId })).status).toBe(200);
    tick();
    const again = await loginWithCode(member.email, { code: totp(enrolled.secret, clock) });
    expect((await again.browser!.call('projects.list', { organizationId: organization.organizationId })).status).toBe(200);

    // The owner turns it off again (with their proven session).
    expect((await mutate(owner.browser, 'auth.setOrganizationSecondFactor', { organizationId: organization.organizationId, required: false })).status).toBe(200);
    expect(secret).toBeTruthy();
  });
});

describe('operator', () => {
  it('`users second-factor reset <email>` removes it and ends the sessions; `users list` says who has one', async () => {
    const { email, browser } = await newMember(null);
    await enrol(browser);
    const listed = await cli(service, ['users', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.json.find((user: { email: string }) => user.email === email)).toMatchObject({ secondFactor: true });

    const reset = await cli(service, ['users', 'second-factor', 'reset', email]);
    expect(reset.code).toBe(0);
    expect(reset.json).toMatchObject({ email, hadSecondFactor: true, sessionsEnded: 1 });
    expect((await browser.call('auth.sessions')).status).toBe(401);
    expect((await passwordStep(email)).body.result.data.csrfToken).toBeTruthy();
    expect((await cli(service, ['users', 'second-factor', 'reset', 'nobody-here@example.com'])).code).not.toBe(0);
  });

  it('the audit log has every change of a second factor and of a requirement, and no secret or code', async () => {
    const { email, browser } = await newMember(tenant.organizationId, 'owner');
    const { secret, recoveryCodes } = await enrol(browser);
    tick();
    const fresh = (await mutate(browser, 'auth.regenerateRecoveryCodes', { code: totp(secret, clock) })).body.result.data.recoveryCodes as string[];
    expect((await mutate(browser, 'auth.setOrganizationSecondFactor', { organizationId: tenant.organizationId, required: true })).status).toBe(200);
    expect((await mutate(browser, 'auth.setOrganizationSecondFactor', { organizationId: tenant.organizationId, required: false })).status).toBe(200);
    expect((await mutate(browser, 'auth.disableSecondFactor', { password: PASSWORD, recoveryCode: fresh[1] })).status).toBe(200);
    await enrol(browser);
    expect((await cli(service, ['users', 'second-factor', 'reset', email])).code).toBe(0);

    const entries = await service.services.db.fork().find(AuditEntry, { targetId: { $in: [browser.userId, tenant.organizationId] } }, { orderBy: { createdAt: 'asc', id: 'asc' } });
    const mine = entries.filter((entry) => /second_factor|recovery_codes/.test(entry.action));
    expect(mine.map((entry) => [entry.action, entry.actorKind])).toEqual([
      ['user.second_factor_enrolment_started', 'user'],
      ['user.second_factor_enabled', 'user'],
      ['user.recovery_codes_regenerated', 'user'],
      ['organization.second_factor_requirement_changed', 'user'],
      ['organization.second_factor_requirement_changed', 'user'],
      ['user.second_factor_disabled', 'user'],
      ['user.second_factor_enrolment_started', 'user'],
      ['user.second_factor_enabled', 'user'],
      ['user.second_factor_reset', 'operator'],
    ]);
    const written = JSON.stringify(mine);
    for (const value of [secret, recoveryCodes[0]!, fresh[0]!]) expect(written).not.toContain(value);
  });
});
