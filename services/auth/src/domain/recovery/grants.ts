import { ApiError } from '@kith/platform';
import { digest, randomSecret } from '../registration/digest.js';
import type { OneTimeValues } from '../ports.js';

/** What a mailed link grants, kept in Redis under the hash of its token until it expires or is used. */
export type GrantKind = 'reset' | 'one-time-login' | 'revert' | 'authorize-ip';

export const GRANT_TTL_MS: Record<GrantKind, number> = {
  reset: 60 * 60_000,
  'one-time-login': 60 * 60_000,
  revert: 2 * 86_400_000,
  'authorize-ip': 60 * 60_000,
};

/** Tokens of 256 random bits; longer input than any token is refused before hashing. */
const MAX_TOKEN_LENGTH = 256;

/** The one answer to an unknown, used, expired or malformed token: 50035 on the field that carried it. */
export const invalidToken = (field: 'token' | 'ticket'): ApiError =>
  ApiError.form({ [field]: { code: 'TOKEN_INVALID', message: 'Invalid or expired token.' } });

const keyOf = (kind: GrantKind, token: string): string => `recovery:${kind}:${digest(kind, token)}`;

/** Single-use, expiring grants stored only as hashes of their tokens. */
export class Grants {
  constructor(private readonly store: OneTimeValues) {}

  async issue<T extends object>(kind: GrantKind, value: T): Promise<string> {
    const token = randomSecret(32);
    await this.store.put(keyOf(kind, token), JSON.stringify(value), GRANT_TTL_MS[kind]);
    return token;
  }

  /** Reads a live grant without using it up. */
  async peek<T>(kind: GrantKind, token: string): Promise<T | undefined> {
    if (!token || token.length > MAX_TOKEN_LENGTH) return undefined;
    const value = await this.store.get(keyOf(kind, token));
    return value ? (JSON.parse(value) as T) : undefined;
  }

  /** Uses a grant up: of two concurrent takers only one gets it. */
  async take<T>(kind: GrantKind, token: string): Promise<T | undefined> {
    if (!token || token.length > MAX_TOKEN_LENGTH) return undefined;
    const value = await this.store.take(keyOf(kind, token));
    return value ? (JSON.parse(value) as T) : undefined;
  }
}
