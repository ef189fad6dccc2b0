import { describe, expect, it } from 'vitest';
import { addressKey } from './loginThrottle.js';

describe('addressKey', () => {
  it('counts an IPv4 address, and its IPv4-mapped IPv6 form, as itself', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts IPv6 addresses per /56, which one client controls', () => {
    const key = addressKey('2001:db8:abcd:12ff:1:2:3:4');
    expect(key).toBe('2001:db8:abcd:1200:0:0:0:0/56');
    expect(addressKey('2001:db8:abcd:1234:ffff::1')).toBe(key);
    expect(addressKey('2001:db8:abcd:1300::1')).not.toBe(key);
  });

  it('puts a missing or unparsable address in one bucket', () => {
    expect(addressKey(undefined)).toBe('unknown');
    expect(addressKey('not-an-ip')).toBe('unknown');
  });
});
