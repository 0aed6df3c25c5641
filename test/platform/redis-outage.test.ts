/**
 * A Redis outage does what was chosen for each shared counter (docs/development.md,
 * Performance): a real redis-server of the test's own is shut down under a
 * little load and started again on the same port. Rate limits keep working
 * per node (fail open, still enforced); log-ins are refused with 503
 * service_unavailable (fail safe: a guesser must not get a fresh window on
 * every node); the node stays ready; the outage is told once and its end
 * once; everything comes back by itself when Redis does.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { internalCall, PASSWORD, uniqueEmail } from '../support/dashboard-sessions';
import { call } from '../support/http';
import { eventually } from '../support/outbox-events';
import { startTestRedis, type TestRedis } from '../support/redis-server';
import { startTestService, type TestService } from '../support/service';
import { createTenant } from '../support/tenant';

/** Resolves once the node's Redis connection is up (its readiness check pings it). */
async function connected(service: TestService) {
  await eventually(async () => {
    const response = await fetch(`${service.url}/readyz`);
    return ((await response.json()) as { checks: { redis: string } }).checks.redis === 'ok';
  }, 15_000, 'Redis connected');
}

const OUTAGE_WARNING = /Redis unreachable/g;
const RECOVERY_WARNING = /Redis reachable again/g;

describe('Redis goes away and comes back', () => {
  let redis: TestRedis;
  let service: TestService;
  beforeAll(async () => {
    redis = await startTestRedis();
    service = await startTestService({ env: { REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'outage:', RATE_LIMIT_PAYMENTS_CREATE: '5' } });
    await connected(service);
  });
  afterAll(async () => {
    await service?.stop();
    await redis?.close();
  });

  const logIn = (email: string) => internalCall(service, 'auth.login', { email, password: PASSWORD }, { mutation: true });
  const readyz = async () => {
    const response = await fetch(`${service.url}/readyz`);
    return { status: response.status, body: (await response.json()) as { status: string; checks: Record<string, string> } };
  };
  /** Five counted creates (invalid bodies: counted, answered 400), then the sixth is over the limit of 5 per minute. */
  async function fillWindow(key: string) {
    const replies = [];
    for (let i = 0; i < 6; i++) replies.push(await call(service.url, 'POST', '/v1/payments', { key, body: { amount: 'x' } }));
    return replies.map((reply) => ({ status: reply.status, remaining: reply.headers.get('x-ratelimit-remaining') }));
  }
  const fullWindow = [
    { status: 400, remaining: '4' },
    { status: 400, remaining: '3' },
    { status: 400, remaining: '2' },
    { status: 400, remaining: '1' },
    { status: 400, remaining: '0' },
    { status: 429, remaining: '0' },
  ];

  it('rate limits per node, log-ins refused with 503, still ready; one warning each way; back by itself', async () => {
    const email = uniqueEmail('redis-outage');
    await service.admin.users.create({ email, password: PASSWORD });
    const before = await createTenant(service);
    expect((await logIn(email)).status).toBe(200);
    expect(await fillWindow(before.apiKey)).toEqual(fullWindow);
    expect((await readyz()).body).toEqual({ status: 'ready', checks: { database: 'ok', redis: 'ok' } });

    // A little load all through the outage: every answer is the API's own, never a failure of ours.
    let loading = true;
    const answers: { at: number; status: number | string }[] = [];
    const load = (async () => {
      while (loading) {
        const status = await call(service.url, 'GET', '/v1/auth/test', { key: before.apiKey }).then((reply) => reply.status, (error: Error) => error.message);
        answers.push({ at: Date.now(), status });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    onTestFinished(async () => {
      loading = false;
      await load;
    });

    await redis.stop();
    const outageBegan = Date.now();
    await eventually(async () => answers.filter((answer) => answer.at > outageBegan).length >= 5, 15_000, 'load during the outage');
    // The window counted in Redis is out of reach: this node counts on its own, from a fresh window, still enforced.
    const during = await createTenant(service);
    expect(await fillWindow(during.apiKey)).toEqual(fullWindow);
    const refused = await logIn(email);
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({ error: 'service_unavailable', message: expect.stringMatching(/^Log-ins, password resets and invitations are paused/) });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // A wrong password is not evaluated either: nothing is told about it while it cannot be counted.
    expect((await internalCall(service, 'auth.login', { email, password: 'a guess' }, { mutation: true })).status).toBe(503);
    expect((await readyz())).toEqual({ status: 200, body: { status: 'ready', checks: { database: 'ok', redis: 'unreachable' } } });

    await redis.start();
    // Back by itself: log-ins are counted in Redis again, and so are rate limits (a new key's window holds across calls).
    await eventually(async () => (await logIn(email)).status === 200, 15_000, 'log-ins back after Redis returned');
    loading = false;
    await load;
    const after = await createTenant(service);
    expect(await fillWindow(after.apiKey)).toEqual(fullWindow);
    const inRedis = new Redis(redis.url);
    onTestFinished(() => void inRedis.disconnect());
    expect(await inRedis.keys(`outage:rl*${after.apiKeyId}`)).toHaveLength(1);
    expect((await readyz()).body.checks.redis).toBe('ok');

    expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([200]));
    expect(service.logs().match(OUTAGE_WARNING)).toHaveLength(1);
    expect(service.logs().match(RECOVERY_WARNING)).toHaveLength(1);
  }, 60_000);
});

describe('a key revoked while Redis was away', () => {
  let redis: TestRedis;
  let service: TestService;
  beforeAll(async () => {
    // Restarted with its snapshot: the epoch the node cached under comes back with it.
    redis = await startTestRedis({ persistent: true });
    service = await startTestService({ env: { REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'revoked:' } });
    await connected(service);
  });
  afterAll(async () => {
    await service?.stop();
    await redis?.close();
  });

  it('is never served from the cache again once Redis is back', async () => {
    const tenant = await createTenant(service);
    const authTest = async () => (await call(service.url, 'GET', '/v1/auth/test', { key: tenant.apiKey })).status;
    expect(await authTest()).toBe(200);
    await redis.stop();
    await eventually(async () => service.logs().includes('Redis unreachable'), 15_000, 'the outage seen');
    // The revocation cannot replace the shared epoch now; the key is read from the database meanwhile.
    await service.admin.apiKeys.revoke({ apiKeyId: tenant.apiKeyId });
    expect(await authTest()).toBe(401);
    await redis.start();
    await eventually(async () => service.logs().includes('Redis reachable again'), 15_000, 'Redis back');
    expect(await authTest()).toBe(401);
  }, 60_000);
});
