/**
 * Where the tenancy epoch lives (see domain/authenticate.ts): Redis with
 * REDIS_URL (every node reads it per request; an operator change replaces it
 * with a new random value), otherwise this process (the embedded single node,
 * or PostgreSQL without REDIS_URL, where the cache entries also expire after
 * one second so another node's change is seen that late at most).
 */
import { randomBytes } from 'node:crypto';
import type { TenancyEpoch } from '../domain/authenticate';
import type { SharedStore } from './redis';

export function localTenancyEpoch(): TenancyEpoch {
  let epoch = 0;
  return {
    read: async () => String(epoch),
    bump: async () => {
      epoch++;
    },
  };
}

/** Random values, never a counter: a Redis that lost its data can never bring back an epoch a node cached under. */
export function redisTenancyEpoch(store: SharedStore): TenancyEpoch {
  const key = `${store.prefix}tenancy:epoch`;
  const fresh = () => randomBytes(12).toString('base64url');
  // An operator change made while Redis was unreachable could not replace the epoch; the entries cached under it before
  // the outage must not come back with it. Each node that saw the outage replaces it once Redis answers.
  store.onRecovered(() => void store.client.set(key, fresh()).catch((error: unknown) => store.degraded('api-key cache', error)));
  return {
    async read() {
      if (!store.ready()) return null;
      try {
        const epoch = await store.client.get(key);
        if (epoch) return epoch;
        await store.client.set(key, fresh(), 'NX');
        return await store.client.get(key);
      } catch (error) {
        store.degraded('api-key cache', error);
        return null;
      }
    },
    async bump() {
      // A node that cannot reach Redis caches nothing, so a failed bump only matters if this node alone is cut off:
      // the others then see the change within the cache's 60 s lifetime. Logged, not thrown (the change is committed).
      await store.client.set(key, fresh()).catch((error: unknown) => store.degraded('api-key cache', error));
    },
  };
}
