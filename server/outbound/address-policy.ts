/**
 * Which IP addresses a webhook may reach: public unicast only, classified by
 * ipaddr.js rather than hand-written ranges. Used on URL literals, on every
 * address a name resolves to, and on the address a socket actually connected to.
 */
import ipaddr from 'ipaddr.js';

/** Every globally routable IPv6 unicast address is inside 2000::/3; anything else is local, special or embeds IPv4. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** Why this address is refused (its range, e.g. `loopback`), or null when it is public. */
export function addressRefusal(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, ''));
  } catch {
    return 'not an IP address';
  }
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    // ::ffff:a.b.c.d reaches the IPv4 address: judge that address.
    if (v6.isIPv4MappedAddress()) return addressRefusal(v6.toIPv4Address().toString());
    const range = v6.range();
    if (range !== 'unicast') return range;
    if (!v6.match(GLOBAL_UNICAST_V6)) return 'not global unicast';
    return null;
  }
  const range = (parsed as ipaddr.IPv4).range();
  return range === 'unicast' ? null : range;
}

export const isPublicAddress = (address: string): boolean => addressRefusal(address) === null;

/** `::ffff:a.b.c.d`: an IPv6 spelling of an IPv4 address, never needed in a webhook URL. */
export function isIPv4Mapped(address: string): boolean {
  try {
    const parsed = ipaddr.parse(address.replace(/^\[|\]$/g, ''));
    return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress();
  } catch {
    return false;
  }
}
