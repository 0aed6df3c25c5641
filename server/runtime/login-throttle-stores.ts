/**
 * Where the log-in throttle's counters live (domain/people/throttle.ts; the
 * invitations' windows are counted with them):
 * Redis with REDIS_URL, so a guesser spreading attempts over nodes is counted
 * once; otherwise this process's memory (the embedded single node). While
 * Redis is unreachable each node counts on its own (logged), as rate limits do.
 *
 * Each window is rate-limiter-flexible's `consume`: one atomic increment (a
 * Lua script in Redis) that also tells whether the window was already full.
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { throttleKeyOfAddress } from '../domain/client-address';
import { ADDRESS_FAILURES, EMAIL_FAILURES, INVITATIONS_PER_ADDRESS, INVITATIONS_PER_ORGANIZATION, type LoginClient, type LoginThrottle } from '../domain/people/throttle';
import type { SharedStore } from './redis';

type Build = (name: string, limit: { points: number; seconds: number }) => RateLimiterAbstract;

function throttle(build: Build): LoginThrottle {
  const byEmail = build('login:email', EMAIL_FAILURES);
  const byAddress = build('login:addr', ADDRESS_FAILURES);
  const invitesByOrganization = build('invite:org', INVITATIONS_PER_ORGANIZATION);
  // Per organization and address: another organization's invitations to the same address tell nothing here.
  const invitesByAddress = build('invite:addr', INVITATIONS_PER_ADDRESS);
  // A trusted device is a client of its own: its window is keyed by the device, not the address (an IPv6 one by its /64).
  const emailKey = (client: LoginClient) => (client.device ? `device:${client.device}|${client.email}` : `${throttleKeyOfAddress(client.address)}|${client.email}`);
  /** Seconds to wait when this attempt did not fit in the window; 0 when it did. */
  const take = (limiter: RateLimiterAbstract, key: string) =>
    limiter.consume(key).then(
      () => 0,
      (rejection: unknown) => {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      },
    );
  return {
    async attempt(client) {
      const waits = await Promise.all([take(byEmail, emailKey(client)), client.device ? 0 : take(byAddress, throttleKeyOfAddress(client.address))]);
      return Math.max(...waits);
    },
    async succeeded(client) {
      await Promise.all([byEmail.delete(emailKey(client)), client.device ? undefined : byAddress.reward(throttleKeyOfAddress(client.address), 1)]);
    },
    async invitation(organizationId, email) {
      const waits = await Promise.all([take(invitesByOrganization, organizationId), take(invitesByAddress, `${organizationId}|${email}`)]);
      return Math.max(...waits);
    },
    async close() {},
  };
}

export const createMemoryLoginThrottle = (): LoginThrottle =>
  throttle((name, { points, seconds }) => new RateLimiterMemory({ keyPrefix: name, points, duration: seconds }));

export const createRedisLoginThrottle = (store: SharedStore): LoginThrottle =>
  throttle(
    (name, { points, seconds }) =>
      new RateLimiterRedis({
        storeClient: store.client,
        keyPrefix: `${store.prefix}${name}`,
        points,
        duration: seconds,
        rejectIfRedisNotReady: true,
        insuranceLimiter: new RateLimiterMemory({ keyPrefix: name, points, duration: seconds }),
      }),
  );
