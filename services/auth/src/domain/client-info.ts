import { isIP } from 'node:net';
import geoip from 'geoip-country';
import { UAParser } from 'ua-parser-js';

export interface ClientInfo {
  os: string | null;
  platform: string | null;
  location: string | null;
}

/**
 * What a session shows of its client. Official clients describe themselves in the base64 JSON
 * `X-Super-Properties` header (`os`, `browser`); others are read from their User-Agent.
 */
export function clientInfoFrom(headers: { superProperties?: string; userAgent?: string }, clientIp: string): ClientInfo {
  let os: string | null = null;
  let platform: string | null = null;
  if (headers.superProperties) {
    try {
      const props = JSON.parse(Buffer.from(headers.superProperties, 'base64').toString('utf8')) as Record<string, unknown>;
      if (typeof props.os === 'string') os = props.os.slice(0, 64);
      if (typeof props.browser === 'string') platform = props.browser.slice(0, 64);
    } catch {
      // Not JSON: fall back to the User-Agent.
    }
  }
  if ((!os || !platform) && headers.userAgent) {
    const ua = new UAParser(headers.userAgent.slice(0, 512)).getResult();
    os ??= ua.os.name ?? null;
    platform ??= ua.browser.name ?? null;
  }
  return { os, platform, location: approximateLocation(clientIp) };
}

/** Country of an address, from the GeoLite2 country table the package ships; none for private ranges. */
export function approximateLocation(ip: string): string | null {
  if (isIP(ip) === 0) return null;
  return geoip.lookup(ip)?.name ?? null;
}
