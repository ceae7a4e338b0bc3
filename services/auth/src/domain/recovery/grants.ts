import { ApiError } from '@kith/platform';
import { digest, randomSecret } from '../registration/digest.js';
import type { OneTimeValues } from '../ports.js';

/** What a mailed link grants, kept in Redis under the hash of its token until it expires or is used. */
export type GrantKind = 'reset' | 'one-time-login' | 'revert' | 'authorize-ip' | 'authorize-ip-phone';

export const GRANT_TTL_MS: Record<GrantKind, number> = {
  reset: 60 * 60_000,
  'one-time-login': 60 * 60_000,
  revert: 2 * 86_400_000,
  'authorize-ip': 60 * 60_000,
  // As long as a texted code and the phone token it earns can take.
  'authorize-ip-phone': 25 * 60_000,
};

/** Tokens of 256 random bits; longer input than any token is refused before hashing. */
const MAX_TOKEN_LENGTH = 256;

/** The one answer to an unknown, used, expired or malformed token: 50035 on the field that carried it. */
export const invalidToken = (field: 'token' | 'ticket'): ApiError =>
  ApiError.form({ [field]: { code: 'TOKEN_INVALID', message: 'Invalid or expired token.' } });

const keyOf = (kind: GrantKind, token: string): string => `recovery:${kind}:${digest(kind, token)}`;

/** How a stored grant records the group it was issued in (the links of one mail). */
interface Stored {
  group?: string;
}

/**
 * Single-use, expiring grants stored only as hashes of their tokens. Grants issued together (the
 * links of one mail) form a group: using any of them ends all of them.
 */
export class Grants {
  constructor(private readonly store: OneTimeValues) {}

  async issue<T extends object>(kind: GrantKind, value: T): Promise<string> {
    const token = randomSecret(32);
    await this.store.put(keyOf(kind, token), JSON.stringify(value), GRANT_TTL_MS[kind]);
    return token;
  }

  /** A grant under a key of ours rather than a fresh token (a phone number waiting for its code). */
  async keep<T extends object>(kind: GrantKind, subject: string, value: T): Promise<void> {
    await this.store.put(keyOf(kind, subject), JSON.stringify(value), GRANT_TTL_MS[kind]);
  }

  /** Grants that end together: the tokens, in the order given. */
  async issueGroup<T extends object>(grants: { kind: GrantKind; value: T }[]): Promise<string[]> {
    const group = `recovery:group:${randomSecret(16)}`;
    await this.store.put(group, '1', Math.max(...grants.map((g) => GRANT_TTL_MS[g.kind])));
    const tokens: string[] = [];
    for (const { kind, value } of grants) {
      const token = randomSecret(32);
      await this.store.put(keyOf(kind, token), JSON.stringify({ ...value, group }), GRANT_TTL_MS[kind]);
      tokens.push(token);
    }
    return tokens;
  }

  /** Reads a live grant without using it up; one whose group was used is gone. */
  async peek<T>(kind: GrantKind, token: string): Promise<T | undefined> {
    if (!token || token.length > MAX_TOKEN_LENGTH) return undefined;
    const value = await this.store.get(keyOf(kind, token));
    const stored = value ? (JSON.parse(value) as T & Stored) : undefined;
    if (stored?.group && !(await this.store.get(stored.group))) return undefined;
    return stored && withoutGroup(stored);
  }

  /** Uses a grant up (and its group): of two concurrent takers only one gets it. */
  async take<T>(kind: GrantKind, token: string): Promise<T | undefined> {
    if (!token || token.length > MAX_TOKEN_LENGTH) return undefined;
    const key = keyOf(kind, token);
    const value = await this.store.get(key);
    const group = value ? (JSON.parse(value) as Stored).group : undefined;
    const taken = group ? await this.store.takeFromGroup(key, group) : await this.store.take(key);
    return taken ? withoutGroup(JSON.parse(taken) as T & Stored) : undefined;
  }
}

function withoutGroup<T>(stored: T & Stored): T {
  const { group: _group, ...value } = stored;
  return value as T;
}
