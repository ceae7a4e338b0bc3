import type { IncomingMessage, ServerResponse } from 'node:http';

const ALLOWED_HEADERS = [
  'authorization',
  'content-type',
  'x-fingerprint',
  'x-super-properties',
  'x-context-properties',
  'x-discord-locale',
  'x-discord-timezone',
  'x-debug-options',
  'x-audit-log-reason',
  'x-discord-mfa-authorization',
  'x-service-mfa-authorization',
  'x-captcha-key',
  'x-captcha-rqtoken',
].join(', ');
const EXPOSED_HEADERS = [
  'retry-after',
  'x-ratelimit-global',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-ratelimit-reset-after',
  'x-ratelimit-bucket',
  'x-ratelimit-scope',
  'x-request-id',
].join(', ');

/**
 * CORS for browser clients. With `*` any origin may call without credentials; with a list, only
 * those origins, and with credentials (the MFA elevation cookie).
 */
export class Cors {
  private readonly origins: Set<string> | null;

  constructor(origins: string) {
    const list = origins
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    this.origins = list.includes('*') || list.length === 0 ? null : new Set(list);
  }

  /** Sets the CORS headers; answers a preflight and returns true when it did. */
  handle(req: IncomingMessage, res: ServerResponse): boolean {
    const origin = req.headers.origin;
    if (!origin) return false;
    if (this.origins === null) res.setHeader('access-control-allow-origin', '*');
    else if (this.origins.has(origin)) {
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('access-control-allow-credentials', 'true');
      res.setHeader('vary', 'Origin');
    } else return false;
    res.setHeader('access-control-expose-headers', EXPOSED_HEADERS);
    if (req.method !== 'OPTIONS' || !req.headers['access-control-request-method']) return false;
    res.setHeader('access-control-allow-methods', 'GET, POST, PUT, PATCH, DELETE, OPTIONS');
    res.setHeader('access-control-allow-headers', ALLOWED_HEADERS);
    res.setHeader('access-control-max-age', '600');
    res.statusCode = 204;
    res.end();
    return true;
  }
}
