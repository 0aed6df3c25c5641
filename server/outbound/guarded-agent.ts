/**
 * undici connectors and agents whose connections can only reach public
 * addresses, for webhook deliveries and gateway calls. The host name is
 * resolved by the connection itself through a lookup that refuses the whole
 * answer if any address is not public, and the peer address of the connected
 * socket is checked once more: the address judged is the address used, so
 * DNS rebinding between configuration and a call (or between a check and the
 * connect) gets nowhere.
 *
 * The permissive webhook agent (local-development allowance) is a separate
 * pool, so a connection opened under the allowance is never reused for an
 * endpoint the allowance does not cover.
 */
import { isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { addressRefusal } from './address-policy';
import type { HostResolver } from './resolver';
import { checkResolvedAddresses, UrlRefused } from './url-guard';

type LookupCallback = Parameters<LookupFunction>[2];

/** A `dns.lookup`-compatible function over the injected resolver that refuses non-public answers. */
export function guardedLookup(resolve: HostResolver): LookupFunction {
  return (hostname, options, callback: LookupCallback) => {
    resolve(hostname).then(
      (addresses) => {
        try {
          checkResolvedAddresses(hostname, addresses, { allowLocal: false });
        } catch (refused) {
          callback(refused as NodeJS.ErrnoException, '', 0);
          return;
        }
        const wanted = options.family === 6 || options.family === 'IPv6' ? 6 : options.family === 4 || options.family === 'IPv4' ? 4 : 0;
        const entries = addresses.map((address) => ({ address, family: isIP(address) })).filter((e) => wanted === 0 || e.family === wanted);
        const first = entries[0];
        if (!first) {
          callback(Object.assign(new Error(`${hostname} has no address of the requested family`), { code: 'ENOTFOUND' }), '', 0);
          return;
        }
        if (options.all) callback(null, entries);
        else callback(null, first.address, first.family);
      },
      () => {
        // As at registration: a name without a (public) answer is refused, whatever the resolver said.
        callback(Object.assign(new UrlRefused(`${hostname} does not resolve publicly`), { code: 'ENOTFOUND' }), '', 0);
      },
    );
  };
}

export interface WebhookAgents {
  /** Public addresses only. */
  strict: Agent;
  /** The local-development allowance: any address. */
  local: Agent;
  close(): Promise<void>;
}

/** A connector that only ever hands over a socket connected to a public address. */
export function guardedConnector(resolve: HostResolver, timeoutMs: number): buildConnector.connector {
  const connect = buildConnector({ timeout: timeoutMs, lookup: guardedLookup(resolve) });
  return (options, callback) =>
    connect(options, (error, socket) => {
      if (error || !socket) {
        callback(error ?? new Error('connection failed'), null);
        return;
      }
      const peer = socket.remoteAddress ?? '';
      const refusal = peer ? addressRefusal(peer) : 'unknown peer address';
      if (refusal) {
        socket.destroy();
        callback(new UrlRefused(`connected to ${peer || 'an unknown address'}, not a public address (${refusal})`), null);
        return;
      }
      callback(null, socket);
    });
}

export function createWebhookAgents(resolve: HostResolver, timeoutMs: number): WebhookAgents {
  // No redirects are followed: undici's request never follows them without a redirect interceptor.
  const agentOptions = { headersTimeout: timeoutMs, bodyTimeout: timeoutMs };
  const strict = new Agent({ ...agentOptions, connect: guardedConnector(resolve, timeoutMs) });
  const local = new Agent({ ...agentOptions, connect: { timeout: timeoutMs } });
  return {
    strict,
    local,
    close: async () => {
      await Promise.all([strict.close(), local.close()]);
    },
  };
}
