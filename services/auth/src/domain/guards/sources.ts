import { isIP } from 'node:net';

/**
 * The network a request comes from, as limits and known places count it: an IPv4 address, or the
 * /64 of an IPv6 one (one host holds a whole /64, so single addresses would cost it nothing to
 * change). `unknown` when the edge named none.
 */
export function sourceOf(clientIp: string): string {
  const family = isIP(clientIp);
  if (family === 4) return clientIp;
  if (family !== 6) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(clientIp);
  if (mapped) return mapped[1]!;
  return `${expandIpv6(clientIp).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address, `::` filled in, each as lowercase hex without leading zeros. */
function expandIpv6(address: string): string[] {
  const [head, tail] = address.toLowerCase().split('%')[0]!.split('::') as [string, string | undefined];
  const part = (s: string | undefined) => (s ? s.split(':') : []);
  const groups =
    tail === undefined ? part(head) : [...part(head), ...Array<string>(8 - part(head).length - part(tail).length).fill('0'), ...part(tail)];
  return groups.map((g) => (g.includes('.') ? g : parseInt(g, 16).toString(16)));
}
