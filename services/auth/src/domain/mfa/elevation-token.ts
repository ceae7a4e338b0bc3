import { createHmac, timingSafeEqual } from 'node:crypto';
import { sessionIdHash } from '../tokens.js';

const ISSUER = 'kith-auth';
const AUDIENCE = 'kith-mfa-reprompt';
export const ELEVATION_TTL_SECONDS = 300;
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

/**
 * The `/mfa/finish` JWT (HS256, like the platform's HS512 one): one HMAC to make or check, no
 * database, so every service can afford to demand it on each sensitive request. It names the
 * session that earned it (by the hash clients see): any other session, even the same user's, or
 * one opened after a password change, cannot use it.
 */
export class ElevationTokens {
  constructor(
    private readonly key: Buffer,
    private readonly now: () => number = Date.now,
  ) {}

  sign(userId: string, sessionId: string): string {
    const iat = Math.floor(this.now() / 1000);
    const claims = {
      iss: ISSUER,
      aud: AUDIENCE,
      sub: userId,
      sid: sessionIdHash(sessionId),
      iat,
      nbf: iat,
      exp: iat + ELEVATION_TTL_SECONDS,
    };
    const input = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    return `${input}.${this.mac(input).toString('base64url')}`;
  }

  /** True when the token is ours, unexpired, and for this user's session. */
  verify(token: string | undefined, userId: string, sessionId: string): boolean {
    if (!token || token.length > 1024) return false;
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== HEADER) return false;
    const [header, payload, signature] = parts as [string, string, string];
    const expected = this.mac(`${header}.${payload}`);
    const given = Buffer.from(signature, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
    try {
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
      const now = Math.floor(this.now() / 1000);
      return (
        claims.aud === AUDIENCE &&
        claims.sub === userId &&
        claims.sid === sessionIdHash(sessionId) &&
        typeof claims.exp === 'number' &&
        claims.exp > now
      );
    } catch {
      return false;
    }
  }

  private mac(input: string): Buffer {
    return createHmac('sha256', this.key).update(input).digest();
  }
}
