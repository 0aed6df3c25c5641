/**
 * Where the log-in throttle's counters live (domain/people/throttle.ts):
 * Redis with REDIS_URL, so a guesser spreading attempts over nodes is counted
 * once; otherwise this process's memory (the embedded single node). While
 * Redis is unreachable each node counts on its own (logged), as rate limits do.
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { ADDRESS_FAILURES, EMAIL_FAILURES, type LoginThrottle } from '../domain/people/throttle';
import type { SharedStore } from './redis';

type Build = (name: string, limit: { points: number; seconds: number }) => RateLimiterAbstract;

function throttle(build: Build): LoginThrottle {
  const byEmail = build('login:email', EMAIL_FAILURES);
  const byAddress = build('login:addr', ADDRESS_FAILURES);
  const emailKey = (email: string, address: string) => `${address}|${email}`;
  const waitOf = (res: RateLimiterRes | null, points: number) => (res && res.consumedPoints >= points ? Math.max(1, Math.ceil(res.msBeforeNext / 1000)) : 0);
  const count = (limiter: RateLimiterAbstract, key: string) =>
    limiter.consume(key).then(
      () => {},
      (rejection: unknown) => {
        // A full window rejects with its state: the failure is counted all the same.
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
      },
    );
  return {
    async blockedFor(email, address) {
      const [perEmail, perAddress] = await Promise.all([byEmail.get(emailKey(email, address)), byAddress.get(address)]);
      return Math.max(waitOf(perEmail, EMAIL_FAILURES.points), waitOf(perAddress, ADDRESS_FAILURES.points));
    },
    async failed(email, address) {
      await Promise.all([count(byEmail, emailKey(email, address)), count(byAddress, address)]);
    },
    async succeeded(email, address) {
      await byEmail.delete(emailKey(email, address));
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
