/**
 * The key an address-based throttle counts a client under. One IPv6 host
 * usually holds a whole /64 (2^64 addresses to rotate through for free), so
 * counting each IPv6 address alone would give a guesser endless fresh
 * windows: an IPv6 client is counted by its /64. An IPv4 address is its own
 * key; an IPv4-mapped IPv6 address (::ffff:203.0.113.7, how a dual-stack
 * socket reports an IPv4 peer) is the IPv4 address it carries, so one client
 * has one key whichever way it arrived. Anything unparsable is kept as is.
 */
import ipaddr from 'ipaddr.js';

export function throttleKeyOfAddress(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address); // IPv4-mapped IPv6 comes back as IPv4
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(':')}::/64`;
}
