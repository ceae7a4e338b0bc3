import { describe, expect, it } from 'vitest';
import { sourceOf } from './sources.js';

describe('sourceOf', () => {
  it('when the address is IPv4 (or IPv4 mapped into IPv6), then it is the source as is', () => {
    expect(sourceOf('203.0.113.9')).toBe('203.0.113.9');
    expect(sourceOf('::ffff:203.0.113.9')).toBe('203.0.113.9');
  });

  it('when two IPv6 addresses share their /64, then they are one source however they are written', () => {
    expect(sourceOf('2001:db8:0:1::1')).toBe('2001:db8:0:1::/64');
    expect(sourceOf('2001:0DB8:0000:0001:ffff:1:2:3')).toBe('2001:db8:0:1::/64');
    expect(sourceOf('2001:db8::')).toBe('2001:db8:0:0::/64');
    expect(sourceOf('::1')).toBe('0:0:0:0::/64');
    expect(sourceOf('2001:db8:0:2::1')).not.toBe(sourceOf('2001:db8:0:1::1'));
  });

  it('when the edge named no address or something else, then the source is unknown', () => {
    expect(sourceOf('')).toBe('unknown');
    expect(sourceOf('not an address')).toBe('unknown');
  });
});
