/**
 * The log-in throttle under concurrency and behind a reverse proxy: attempts
 * are counted before the password is checked, so a burst sent at once never
 * gets more guesses evaluated than the limit; TRUST_PROXY makes each client's
 * forwarded address its own; a browser that logged in before keeps its own
 * window when its address is locked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { User } from '../../server/db/entities';
import { startTestService, type TestService } from '../support/service';
import { internalCall, PASSWORD, uniqueEmail, type Reply } from '../support/dashboard-sessions';

let service: TestService;
let direct: TestService;

beforeAll(async () => {
  [service, direct] = await Promise.all([startTestService({ env: { TRUST_PROXY: 'loopback' } }), startTestService()]);
});
afterAll(async () => Promise.all([service?.stop(), direct?.stop()]));

let lastOctet = 0;
/** A client address of its own for each test, as the reverse proxy in front of the service reports it. */
const clientAddress = () => `203.0.113.${++lastOctet}`;

const logIn = (target: TestService, email: string, password: string, headers: Record<string, string> = {}) =>
  internalCall(target, 'auth.login', { email, password }, { mutation: true, headers });

const statuses = (replies: Reply[]) => replies.map((reply) => reply.status);
const count = (replies: Reply[], status: number) => statuses(replies).filter((s) => s === status).length;

describe('attempts are counted before the password is checked', () => {
  it('40 wrong passwords and the right one sent at once: at most 5 are evaluated, the rest and the right one are refused', async () => {
    const email = uniqueEmail('burst');
    await service.admin.users.create({ email, password: PASSWORD });
    const from = { 'x-forwarded-for': clientAddress() };
    const wrong = Array.from({ length: 40 }, (_, i) => logIn(service, email, `guess ${i}`, from));
    const right = logIn(service, email, PASSWORD, from);
    const replies = await Promise.all([...wrong, right]);

    expect(count(replies, 401)).toBeLessThanOrEqual(5);
    expect(count(replies, 401) + count(replies, 429)).toBe(41);
    const answer = await right;
    expect(answer.status).toBe(429);
    expect(answer.body).toEqual({ error: 'rate_limited', message: expect.stringMatching(/Too many failed log-ins/) });
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(60);
    // Still refused afterwards, until the window passes.
    expect((await logIn(service, email, PASSWORD, from)).status).toBe(429);
  });

  it('a burst of 200 gets no more than 5 evaluated', async () => {
    const email = uniqueEmail('burst-200');
    await service.admin.users.create({ email, password: PASSWORD });
    const from = { 'x-forwarded-for': clientAddress() };
    const replies = await Promise.all(Array.from({ length: 200 }, (_, i) => logIn(service, email, `guess ${i}`, from)));
    expect(count(replies, 401)).toBeLessThanOrEqual(5);
    expect(count(replies, 429)).toBeGreaterThanOrEqual(195);
  });

  it('a signed-in session changing its password at once many times: at most 5 current passwords are evaluated', async () => {
    const email = uniqueEmail('change-burst');
    await service.admin.users.create({ email, password: PASSWORD });
    const from = { 'x-forwarded-for': clientAddress() };
    const login = await logIn(service, email, PASSWORD, from);
    const session = login.headers.get('set-cookie')!.split(';')[0]!;
    const headers = { ...from, cookie: session, 'x-csrf-token': login.body.result.data.csrfToken };
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) => internalCall(service, 'auth.changePassword', { currentPassword: `guess ${i}`, newPassword: 'taken over for good' }, { mutation: true, headers })),
    );
    expect(count(replies, 400)).toBeLessThanOrEqual(5);
    expect(count(replies, 400) + count(replies, 429)).toBe(30);
    expect((await logIn(service, email, PASSWORD, { 'x-forwarded-for': clientAddress() })).status).toBe(200);
  });

  it('a borrowed session enrolling its own second factor guesses the password no faster: at most 5 are evaluated, nothing is enrolled', async () => {
    const email = uniqueEmail('enrol-burst');
    await service.admin.users.create({ email, password: PASSWORD });
    const from = { 'x-forwarded-for': clientAddress() };
    const login = await logIn(service, email, PASSWORD, from);
    const headers = { ...from, cookie: login.headers.get('set-cookie')!.split(';')[0]!, 'x-csrf-token': login.body.result.data.csrfToken };
    const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => internalCall(service, 'auth.startSecondFactor', { password: `guess ${i}` }, { mutation: true, headers })));
    expect(count(replies, 400)).toBeLessThanOrEqual(5);
    expect(count(replies, 400) + count(replies, 429)).toBe(30);
    expect((await service.services.db.fork().findOneOrFail(User, { email })).secondFactorPendingSealed).toBeNull();
  });
});

describe('behind a reverse proxy (TRUST_PROXY)', () => {
  it('two clients with different forwarded addresses do not share a lock', async () => {
    const email = uniqueEmail('two-clients');
    await service.admin.users.create({ email, password: PASSWORD });
    const attacker = { 'x-forwarded-for': clientAddress() };
    await Promise.all(Array.from({ length: 6 }, (_, i) => logIn(service, email, `guess ${i}`, attacker)));
    expect((await logIn(service, email, PASSWORD, attacker)).status).toBe(429);
    expect((await logIn(service, email, PASSWORD, { 'x-forwarded-for': clientAddress() })).status).toBe(200);
  });

  it('an IPv6 client is counted by its /64: other addresses of it share the lock, another /64 does not; an IPv4-mapped address is its IPv4 one', async () => {
    const email = uniqueEmail('ipv6');
    await service.admin.users.create({ email, password: PASSWORD });
    const prefix = `2001:db8:${(++lastOctet).toString(16)}:1`;
    await Promise.all(Array.from({ length: 5 }, (_, i) => logIn(service, email, `guess ${i}`, { 'x-forwarded-for': `${prefix}::${i + 1}` })));
    expect((await logIn(service, email, PASSWORD, { 'x-forwarded-for': `${prefix}:ffff:ffff:ffff:fff0` })).status).toBe(429);
    expect((await logIn(service, email, PASSWORD, { 'x-forwarded-for': `2001:db8:${lastOctet.toString(16)}:2::1` })).status).toBe(200);

    const mapped = uniqueEmail('ipv4-mapped');
    await service.admin.users.create({ email: mapped, password: PASSWORD });
    const ipv4 = clientAddress();
    await Promise.all(Array.from({ length: 5 }, (_, i) => logIn(service, mapped, `guess ${i}`, { 'x-forwarded-for': ipv4 })));
    expect((await logIn(service, mapped, PASSWORD, { 'x-forwarded-for': `::ffff:${ipv4}` })).status).toBe(429);
  });

  it('without TRUST_PROXY a forwarded address is not believed: a guesser cannot get a fresh window by inventing one', async () => {
    const email = uniqueEmail('spoofed');
    await direct.admin.users.create({ email, password: PASSWORD });
    for (let i = 0; i < 5; i++) expect((await logIn(direct, email, `guess ${i}`, { 'x-forwarded-for': clientAddress() })).status).toBe(401);
    expect((await logIn(direct, email, PASSWORD, { 'x-forwarded-for': clientAddress() })).status).toBe(429);
  });

  it('an address that sprayed 50 failures is locked for strangers, but not for a browser that logged in before', async () => {
    const shared = { 'x-forwarded-for': clientAddress() };
    const regular = uniqueEmail('regular');
    await service.admin.users.create({ email: regular, password: PASSWORD });
    const first = await logIn(service, regular, PASSWORD, shared);
    expect(first.status).toBe(200);
    const device = first.headers.getSetCookie().find((cookie) => cookie.startsWith('dashboard_device='))!;
    expect(device).toMatch(/; HttpOnly/);
    expect(device).toMatch(/; SameSite=Strict/);
    const deviceCookie = device.split(';')[0]!;

    const spray = await Promise.all(Array.from({ length: 50 }, (_, i) => logIn(service, uniqueEmail(`spray-${i}`), 'guess', shared)));
    expect(count(spray, 401)).toBe(50);
    // A stranger from that address, even with the right password, waits for the window.
    const stranger = uniqueEmail('stranger');
    await service.admin.users.create({ email: stranger, password: PASSWORD });
    expect((await logIn(service, stranger, PASSWORD, shared)).status).toBe(429);
    // The regular's browser proves it logged in here before: its own window.
    expect((await logIn(service, regular, PASSWORD, { ...shared, cookie: deviceCookie })).status).toBe(200);
    // A device cookie proves nothing for another e-mail, nor when forged.
    expect((await logIn(service, stranger, PASSWORD, { ...shared, cookie: deviceCookie })).status).toBe(429);
    const forged = `dashboard_device=${'A'.repeat(22)}.${'B'.repeat(43)}`;
    expect((await logIn(service, regular, PASSWORD, { ...shared, cookie: forged })).status).toBe(429);
    // 50 password checks at once are CPU-bound by design (an unknown e-mail is hashed like a known one): on a busy 2-core host they took 27-30 s.
  }, 90_000);
});
