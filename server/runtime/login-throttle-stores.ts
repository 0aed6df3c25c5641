/**
 * Where the log-in throttle's counters live (domain/people/throttle.ts; the
 * invitations' windows are counted with them):
 * Redis with REDIS_URL, so a guesser spreading attempts over nodes is counted
 * once; otherwise this process's memory (the embedded single node). While
 * Redis is unreachable they fail safe: an attempt that cannot be counted is
 * refused unevaluated (503 service_unavailable), never let through on a
 * per-node count that would give a guesser a fresh window on every node.
 *
 * Each window is rate-limiter-flexible's `consume`: one atomic increment (a
 * Lua script in Redis) that also tells whether the window was already full.
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { throttleKeyOfAddress } from '../domain/client-address';
import { ADDRESS_FAILURES, EMAIL_FAILURES, INVITATIONS_PER_ADDRESS, INVITATIONS_PER_ORGANIZATION, type LoginClient, type LoginThrottle } from '../domain/people/throttle';
import { Refusal } from '../domain/refusal';
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

/** Fail safe: a window Redis cannot count refuses with 503 (no per-node fallback), and the outage is logged. */
class FailSafeWindow extends RateLimiterRedis {
  constructor(
    private readonly store: SharedStore,
    options: ConstructorParameters<typeof RateLimiterRedis>[0],
  ) {
    super(options);
  }
  private refuse(failure: unknown): never {
    // A full window is rate-limiter-flexible's RateLimiterRes: an answer, not a failure.
    if (failure instanceof RateLimiterRes) throw failure;
    this.store.degraded('log-in throttle', failure);
    throw new Refusal('service_unavailable', {}, 'Log-ins, password resets and invitations are paused: the service cannot count attempts right now (its shared store is unreachable); try again in a moment.');
  }
  override consume(...args: Parameters<RateLimiterRedis['consume']>) {
    return super.consume(...args).catch((failure: unknown) => this.refuse(failure));
  }
  override reward(...args: Parameters<RateLimiterRedis['reward']>) {
    return super.reward(...args).catch((failure: unknown) => this.refuse(failure));
  }
  override delete(...args: Parameters<RateLimiterRedis['delete']>) {
    return super.delete(...args).catch((failure: unknown) => this.refuse(failure));
  }
}

export const createRedisLoginThrottle = (store: SharedStore): LoginThrottle =>
  throttle(
    (name, { points, seconds }) =>
      new FailSafeWindow(store, {
        storeClient: store.client,
        keyPrefix: `${store.prefix}${name}`,
        points,
        duration: seconds,
        // Not connected: refused at once instead of after a command timeout.
        rejectIfRedisNotReady: true,
      }),
  );
