/**
 * The SSRF guard on every URL the service calls: merchants' webhook
 * endpoints and gateways' base URLs (docs/api.md, "Receiving webhooks", and
 * docs/operating.md, "Gateways and the sandbox"). Public HTTPS only. The URL's shape is checked
 * here, when it is configured and before every call; names are resolved when
 * configured here, and at each call by the connection itself
 * (guarded-agent.ts), so the address checked is the one connected to and a
 * DNS answer that changes in between cannot slip through.
 */
import { isIP } from 'node:net';
import { isEmbeddedDemo, type Config } from '../config';
import { addressRefusal, isIPv4Mapped } from './address-policy';
import type { HostResolver } from './resolver';

/** What a URL may reach. `allowLocal` is the explicit local-development allowance. */
export interface UrlPolicy {
  allowLocal: boolean;
}

/**
 * The allowance applies only in the embedded demo or when configured
 * (WEBHOOK_ALLOW_LOCAL_URLS, which start-up refuses in production), and never
 * to a production environment's endpoints. It is decided from the database the
 * service really uses: SEED_DEMO=true on PostgreSQL is not the demo.
 */
export const webhookUrlPolicy = (config: Config, environmentKind: string): UrlPolicy => ({
  allowLocal: (config.webhooks.allowLocalUrls ?? isEmbeddedDemo(config)) && config.env !== 'production' && environmentKind !== 'production',
});

/**
 * Gateways: in production every base URL must be a public HTTPS address, in
 * every environment (a sandbox account talks to its gateway's public sandbox
 * host). Outside production (the embedded demo, tests, a developer's machine)
 * the local simulators must be reachable, so any address is allowed.
 */
export const gatewayUrlPolicy = (config: Config): UrlPolicy => ({ allowLocal: config.env !== 'production' });

/** A refusal by the guard; its message names the rule, never a secret. */
export class UrlRefused extends Error {
  override name = 'UrlRefused';
}

export const MAX_URL_LENGTH = 2048;

/**
 * Suffixes that never name a public host: RFC 6761/6762/8375/9476 special-use
 * names and the usual private-network conventions.
 */
const NON_PUBLIC_SUFFIXES = [
  'localhost',
  'local',
  'localdomain',
  'internal',
  'intranet',
  'private',
  'corp',
  'home',
  'lan',
  'arpa',
  'test',
  'invalid',
  'example',
  'onion',
  'alt',
];

export interface CheckedUrl {
  url: URL;
  /** The host without IPv6 brackets or a trailing dot. */
  host: string;
  /** True when the host is an IP literal (then there is nothing to resolve). */
  literal: boolean;
}

/** Checks everything that does not need DNS; throws UrlRefused. */
export function checkUrlShape(raw: string, policy: UrlPolicy): CheckedUrl {
  if (raw.length > MAX_URL_LENGTH) throw new UrlRefused(`the URL is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlRefused('not a valid absolute URL');
  }
  const allowedSchemes = policy.allowLocal ? ['https:', 'http:'] : ['https:'];
  if (!allowedSchemes.includes(url.protocol)) throw new UrlRefused('the URL must use https://');
  if (url.username || url.password) throw new UrlRefused('the URL must not carry credentials');
  // The WHATWG parser has already rewritten decimal, octal and hex IPv4 spellings into dotted quads.
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (!host) throw new UrlRefused('the URL has no host');
  const literal = isIP(host) !== 0;
  if (policy.allowLocal) return { url, host, literal };

  if (literal) {
    if (isIPv4Mapped(host)) throw new UrlRefused('IPv4-mapped IPv6 addresses are refused');
    const refusal = addressRefusal(host);
    if (refusal) throw new UrlRefused(`${host} is not a public address (${refusal})`);
    return { url, host, literal };
  }
  const suffix = NON_PUBLIC_SUFFIXES.find((s) => host === s || host.endsWith(`.${s}`));
  if (suffix) throw new UrlRefused(`${host} is an internal name (.${suffix})`);
  if (!host.includes('.')) throw new UrlRefused(`${host} is a single-label name without public DNS`);
  return { url, host, literal };
}

/** Throws unless every address is public (or the policy allows local ones). */
export function checkResolvedAddresses(host: string, addresses: readonly string[], policy: UrlPolicy): void {
  if (policy.allowLocal) return;
  if (addresses.length === 0) throw new UrlRefused(`${host} does not resolve`);
  for (const address of addresses) {
    const refusal = addressRefusal(address);
    if (refusal) throw new UrlRefused(`${host} resolves to ${address}, not a public address (${refusal})`);
  }
}

/** The check when a URL is configured: shape, then the name's current DNS answer. Returns the normalized URL. */
export async function checkOutboundUrl(raw: string, policy: UrlPolicy, resolve: HostResolver): Promise<string> {
  const checked = checkUrlShape(raw, policy);
  if (!checked.literal && !policy.allowLocal) {
    let addresses: string[];
    try {
      addresses = await resolve(checked.host);
    } catch {
      throw new UrlRefused(`${checked.host} does not resolve publicly`);
    }
    checkResolvedAddresses(checked.host, addresses, policy);
  }
  return checked.url.href;
}
