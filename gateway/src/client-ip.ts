import { BlockList, isIP } from 'node:net';

/**
 * The client's address: the socket's peer, unless that peer is a trusted proxy, in which case the
 * right-most X-Forwarded-For entry that is not itself a trusted proxy. A client cannot choose its
 * own address by sending the header directly.
 */
export class ClientIpResolver {
  private readonly trusted = new BlockList();
  private readonly any: boolean;

  constructor(trustedProxies: string) {
    const entries = trustedProxies
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    this.any = entries.length > 0;
    for (const entry of entries) {
      const [address, prefix] = entry.split('/') as [string, string | undefined];
      const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
      if (isIP(address) === 0) throw new Error(`TRUSTED_PROXIES: ${entry} is not an address or CIDR`);
      if (prefix === undefined) this.trusted.addAddress(address, family);
      else this.trusted.addSubnet(address, Number(prefix), family);
    }
  }

  resolve(peer: string | undefined, forwardedFor: string | string[] | undefined): string {
    const remote = normalise(peer ?? '');
    if (!this.any || !this.isTrusted(remote) || !forwardedFor) return remote;
    const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',').map((s) => normalise(s.trim()));
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i]!;
      if (isIP(hop) === 0) return remote;
      if (!this.isTrusted(hop)) return hop;
    }
    return hops[0] ?? remote;
  }

  private isTrusted(address: string): boolean {
    const family = isIP(address);
    return family !== 0 && this.trusted.check(address, family === 6 ? 'ipv6' : 'ipv4');
  }
}

/** `::ffff:1.2.3.4` → `1.2.3.4`. */
function normalise(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}
