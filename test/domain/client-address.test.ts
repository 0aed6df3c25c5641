/** Address-based throttles count an IPv6 client by its /64, an IPv4 one (mapped or not) by its address. */
import { describe, expect, it } from 'vitest';
import { throttleKeyOfAddress } from '../../server/domain/client-address';

describe('throttleKeyOfAddress', () => {
  it('an IPv4 address is its own key', () => {
    expect(throttleKeyOfAddress('203.0.113.7')).toBe('203.0.113.7');
    expect(throttleKeyOfAddress('203.0.113.8')).toBe('203.0.113.8');
  });

  it('an IPv4-mapped IPv6 address is the IPv4 address it carries', () => {
    expect(throttleKeyOfAddress('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(throttleKeyOfAddress('::FFFF:cb00:7107')).toBe('203.0.113.7');
  });

  it('IPv6 addresses of one /64 share a key, however they are written; another /64 has its own', () => {
    const key = throttleKeyOfAddress('2001:db8:1:2::1');
    expect(key).toBe('2001:db8:1:2::/64');
    expect(throttleKeyOfAddress('2001:0DB8:0001:0002:ffff:ffff:ffff:fffe')).toBe(key);
    expect(throttleKeyOfAddress('2001:db8:1:2:a:b:c:d')).toBe(key);
    expect(throttleKeyOfAddress('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(throttleKeyOfAddress('::1')).toBe('0:0:0:0::/64');
    expect(throttleKeyOfAddress('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });

  it('what is not an address is kept as it is', () => {
    expect(throttleKeyOfAddress('unknown')).toBe('unknown');
  });
});
