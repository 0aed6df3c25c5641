/**
 * Second-factor codes cannot be guessed from many addresses (issue 35): ten
 * codes per log-in challenge, then it is dead; twenty wrong codes per account
 * in an hour, across every address and challenge, then codes are refused for
 * the account (unchecked, so the answer tells nothing) until the hour passes
 * or its owner follows the link mailed to them, once per lock, through a real
 * SMTP server. Clients are told apart by X-Forwarded-For (TRUST_PROXY).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { User } from '../../server/db/entities';
import { startTestService, type TestService } from '../support/service';
import { browserFor, internalCall, login, PASSWORD, uniqueEmail, type Reply } from '../support/dashboard-sessions';
import { eventually } from '../support/outbox-events';
import { enrolSecondFactor } from '../support/second-factor';
import { decoded, linkIn, startSmtpInbox, type SmtpInbox } from '../support/smtp-inbox';
import { totp } from '../support/totp';

const STEP = 30_000;
/** The service's clock: moved a step on whenever a test needs a code not yet used. */
let clock = Date.now();
const tick = (steps = 1) => (clock += steps * STEP);

let inbox: SmtpInbox;
let service: TestService;

beforeAll(async () => {
  inbox = await startSmtpInbox();
  service = await startTestService({ env: { TRUST_PROXY: 'loopback', SMTP_URL: inbox.url }, now: () => new Date(clock) });
}, 60_000);
afterAll(async () => {
  await service?.stop();
  await inbox?.close();
});

let lastAddress = 0;
/** A client address never used before, as the reverse proxy reports it. */
const freshAddress = () => `198.51.${Math.floor(++lastAddress / 250)}.${(lastAddress % 250) + 1}`;

const from = (address: string) => ({ mutation: true, headers: { 'x-forwarded-for': address } });
const passwordStep = async (email: string) => {
  const reply = await internalCall(service, 'auth.login', { email, password: PASSWORD }, from(freshAddress()));
  expect(reply.status).toBe(200);
  return reply.body.result.data.challenge as string;
};
const secondStep = (input: unknown, address = freshAddress()) => internalCall(service, 'auth.verifySecondFactor', input, from(address));
const count = (replies: Reply[], status: number) => replies.filter((reply) => reply.status === status).length;

/** A user with a second factor; `right` is a code of the current step, `wrong` one that is not. */
async function enrolled() {
  const email = uniqueEmail('ceiling');
  await service.admin.users.create({ email, password: PASSWORD });
  const { secret, recoveryCodes } = await enrolSecondFactor(await login(service, email), tick);
  tick();
  const right = totp(secret, clock);
  return { email, secret, recoveryCodes, right, wrong: right === '000000' ? '111111' : '000000' };
}

/** `n` wrong codes at the challenge, sent at once from addresses of 5 codes each (what the per-address throttle lets through). */
function spread(challenge: string, code: string, n: number): Promise<Reply[]> {
  const addresses = Array.from({ length: Math.ceil(n / 5) }, freshAddress);
  return Promise.all(Array.from({ length: n }, (_, i) => secondStep({ challenge, code }, addresses[i % addresses.length])));
}

describe('ceilings that no number of addresses gets round', () => {
  it('40 addresses send 200 wrong codes at one challenge: 10 are checked, the right code is then refused; the account lock holds for a fresh challenge; the mailed link frees it; one warning mail', async () => {
    const { email, secret, recoveryCodes, right, wrong } = await enrolled();
    const challenge = await passwordStep(email);

    const burst = await spread(challenge, wrong, 200);
    expect(count(burst, 400)).toBe(10);
    expect(count(burst, 401)).toBe(190);
    const dead = await secondStep({ challenge, code: right });
    expect(dead.status).toBe(401);
    expect(dead.body).toEqual({ error: 'unauthorized', message: 'Too many wrong codes for this log-in; enter your e-mail and password again.' });

    // A fresh challenge, ten more wrong codes from other addresses: the account's twenty in the hour.
    const second = await passwordStep(email);
    expect(count(await spread(second, wrong, 10), 400)).toBe(10);

    // Locked for every challenge and address: the right code, a wrong one and a recovery code get the same answer, unchecked.
    const third = await passwordStep(email);
    const lockedRight = await secondStep({ challenge: third, code: right });
    expect(lockedRight.status).toBe(429);
    expect(lockedRight.body).toEqual({ error: 'rate_limited', message: expect.stringMatching(/^Too many wrong codes for this account: codes are refused for 60 minute\(s\), or until the link mailed/) });
    expect(Number(lockedRight.headers.get('retry-after'))).toBeGreaterThan(3000);
    const lockedWrong = await secondStep({ challenge: third, code: wrong });
    expect([lockedWrong.status, lockedWrong.body]).toEqual([429, lockedRight.body]);
    expect((await secondStep({ challenge: third, recoveryCode: recoveryCodes[0] })).body).toEqual(lockedRight.body);

    // The owner was warned, with the link and without any code or secret.
    const mail = await eventually(async () => inbox.to(email)[0], 10_000, 'the warning mail');
    const text = decoded(mail.raw);
    expect(text).toMatch(/^Subject: Wrong second-factor codes for your payments dashboard account/m);
    expect(text).toContain('20 wrong second-factor codes');
    for (const value of [secret, right, wrong, ...recoveryCodes]) expect(text).not.toContain(value);
    const token = linkIn(mail, 'unlock-codes')!;
    expect(token).toBeTruthy();
    const stored = await service.services.db.fork().findOneOrFail(User, { email });
    expect(stored.secondFactorUnlockHash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.secondFactorUnlockHash).not.toContain(token);

    const unlocked = await internalCall(service, 'auth.unlockSecondFactorCodes', { token }, { mutation: true });
    expect(unlocked.status).toBe(200);
    expect(unlocked.body.result.data).toEqual({ unlocked: true });
    // Single use.
    const again = await internalCall(service, 'auth.unlockSecondFactorCodes', { token }, { mutation: true });
    expect(again.status).toBe(401);
    expect(again.body.error).toBe('unauthorized');

    // Freed: the right code opens the session on the challenge that was refused while locked.
    const opened = await secondStep({ challenge: third, code: right });
    expect(opened.status).toBe(200);
    expect(opened.body.result.data).toMatchObject({ user: { email: email.toLowerCase() }, method: 'totp' });
    // Warned once for the lock, not once per code: a reset mail asked for now lands after any warning sent with the burst.
    expect((await internalCall(service, 'auth.requestPasswordReset', { email }, { mutation: true })).status).toBe(200);
    await eventually(async () => inbox.to(email).some((mail) => linkIn(mail, 'reset-password')), 10_000, 'the reset mail');
    expect(inbox.to(email).filter((mail) => linkIn(mail, 'unlock-codes'))).toHaveLength(1);
  });

  it('wrong codes sent to change the second factor count on the account too; the lock ends when the hour has passed', async () => {
    const { email, secret, right, wrong } = await enrolled();
    const opened = await secondStep({ challenge: await passwordStep(email), code: right });
    expect(opened.status).toBe(200);
    const session = browserFor(service, opened.headers.get('set-cookie')!.split(';')[0]!, opened.body.result.data.csrfToken, opened.body.result.data.user.id);
    const regenerate = (code: string) => session.call('auth.regenerateRecoveryCodes', { code }, from(freshAddress()));
    for (let i = 0; i < 10; i++) expect((await regenerate(wrong)).status).toBe(400);
    expect(count(await spread(await passwordStep(email), wrong, 10), 400)).toBe(10);

    tick();
    const locked = await regenerate(totp(secret, clock));
    expect(locked.status).toBe(429);
    expect(locked.body.message).toMatch(/Too many wrong codes for this account/);
    expect((await secondStep({ challenge: await passwordStep(email), code: totp(secret, clock) })).status).toBe(429);
    await eventually(async () => inbox.to(email)[0], 10_000, 'the warning mail');

    tick(121); // an hour and half a minute
    expect((await secondStep({ challenge: await passwordStep(email), code: totp(secret, clock) })).status).toBe(200);
  });

  it('a made-up or expired unlock link is refused in the error format', async () => {
    const made = await internalCall(service, 'auth.unlockSecondFactorCodes', { token: 'A'.repeat(43) }, { mutation: true });
    expect(made.status).toBe(401);
    expect(made.body).toEqual({ error: 'unauthorized', message: expect.stringMatching(/not valid any more/) });
    const empty = await internalCall(service, 'auth.unlockSecondFactorCodes', { token: '' }, { mutation: true });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toBe('invalid_input');
  });
});
