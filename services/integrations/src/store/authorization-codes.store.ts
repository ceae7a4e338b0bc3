import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from '@kith/platform';
import type { AuthorizationCodesPort, AuthorizationGrant } from '../domain/integrations/ports.js';

/** The authorization code grant's ten minutes (RFC 6749's recommended maximum). */
const CODE_TTL_SECONDS = 600;

/**
 * Authorization codes in Redis under their SHA-256 (a read of Redis shows no usable code), each
 * expiring by itself; the token exchange redeems one by deleting it.
 */
export class RedisAuthorizationCodes implements AuthorizationCodesPort {
  constructor(private readonly redis: Redis) {}

  async issue(grant: AuthorizationGrant): Promise<string> {
    const code = randomBytes(24).toString('base64url');
    await this.redis.set(RedisAuthorizationCodes.key(code), JSON.stringify(grant), 'EX', CODE_TTL_SECONDS);
    return code;
  }

  static key(code: string): string {
    return `oauth2-code:${createHash('sha256').update(code).digest('hex')}`;
  }
}
