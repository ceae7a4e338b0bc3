import { describe, expect, it } from 'vitest';
import { ClientIpResolver } from './client-ip.js';

describe('ClientIpResolver', () => {
  it('when no proxy is trusted, then X-Forwarded-For is ignored and the peer is the client', () => {
    const resolver = new ClientIpResolver('');

    expect(resolver.resolve('198.51.100.20', '203.0.113.9')).toBe('198.51.100.20');
  });

  it('when the peer is not a trusted proxy, then its X-Forwarded-For is ignored', () => {
    const resolver = new ClientIpResolver('10.0.0.1');

    expect(resolver.resolve('198.51.100.20', '203.0.113.9')).toBe('198.51.100.20');
    expect(resolver.resolve('198.51.100.20', ['203.0.113.9', '10.0.0.1'])).toBe('198.51.100.20');
  });

  it('when the peer is a trusted proxy, then the client is the right-most hop that is not a trusted proxy', () => {
    const resolver = new ClientIpResolver('10.0.0.1, 10.0.0.2');

    // The left-most entry is whatever the client claimed; only what our proxies appended counts.
    expect(resolver.resolve('10.0.0.1', '1.2.3.4, 203.0.113.9, 10.0.0.2')).toBe('203.0.113.9');
    expect(resolver.resolve('10.0.0.1', '203.0.113.9')).toBe('203.0.113.9');
  });

  it('when the header arrives as several lines, then they are read as one list in order', () => {
    const resolver = new ClientIpResolver('10.0.0.1');

    expect(resolver.resolve('10.0.0.1', ['1.2.3.4', '203.0.113.9'])).toBe('203.0.113.9');
  });

  it('when a trusted proxy sends no X-Forwarded-For, then the proxy itself is the client', () => {
    const resolver = new ClientIpResolver('10.0.0.1');

    expect(resolver.resolve('10.0.0.1', undefined)).toBe('10.0.0.1');
  });

  it('when every hop is a trusted proxy, then the left-most one is the client', () => {
    const resolver = new ClientIpResolver('10.0.0.0/8');

    expect(resolver.resolve('10.0.0.1', '10.1.1.1, 10.2.2.2')).toBe('10.1.1.1');
  });

  it('when a hop is not an address, then nothing left of it is believed', () => {
    const resolver = new ClientIpResolver('10.0.0.1');

    expect(resolver.resolve('10.0.0.1', '203.0.113.9, not-an-ip')).toBe('10.0.0.1');
    expect(resolver.resolve('10.0.0.1', '203.0.113.9:4711')).toBe('10.0.0.1');
  });

  it('when proxies are given as CIDRs, then every address inside them is trusted', () => {
    const resolver = new ClientIpResolver('10.0.0.0/8, fd00::/8');

    expect(resolver.resolve('10.200.3.4', '203.0.113.9, 10.9.9.9')).toBe('203.0.113.9');
    expect(resolver.resolve('fd12::1', '2001:db8::7')).toBe('2001:db8::7');
    expect(resolver.resolve('11.0.0.1', '203.0.113.9')).toBe('11.0.0.1');
    expect(resolver.resolve('fe80::1', '2001:db8::7')).toBe('fe80::1');
  });

  it('when an IPv4 peer or hop is written IPv4-mapped, then it is read as the IPv4 address', () => {
    const resolver = new ClientIpResolver('127.0.0.1');

    expect(resolver.resolve('::ffff:127.0.0.1', '::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(resolver.resolve('::ffff:198.51.100.20', '203.0.113.9')).toBe('198.51.100.20');
  });

  it('when the socket has no peer address, then the client is unknown rather than the header', () => {
    const resolver = new ClientIpResolver('127.0.0.1');

    expect(resolver.resolve(undefined, '203.0.113.9')).toBe('');
  });

  it('when a trusted proxy entry is not an address, then construction fails naming it', () => {
    expect(() => new ClientIpResolver('10.0.0.1, proxy.internal')).toThrow(/proxy\.internal/);
  });
});
