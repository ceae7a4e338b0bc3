import { ApiError } from '@kith/platform';
import { digest, randomSecret, sameDigest } from './registration/digest.js';
import type { SessionRequest } from './sessions.service.js';
import { partialUser } from './user.view.js';
import type { UserRow, OneTimeValues } from './ports.js';

/** Short enough that a token seen in transit is stale before it is useful elsewhere. */
export const HANDOFF_TTL_MS = 60_000;

/**
 * One refusal for every way an exchange can fail (unknown, expired, used, other key, other address,
 * account gone): a caller learns nothing about which, and the token is spent by the first attempt.
 */
const INVALID_HANDOFF = ApiError.form({ handoff_token: { code: 'HANDOFF_TOKEN_INVALID', message: 'Invalid handoff token.' } });

interface HandoffGrant {
  userId: string;
  keyDigest: string;
  ip: string;
}

export interface HandoffUsers {
  findById(id: string): Promise<UserRow | undefined>;
}

export interface HandoffSessions {
  create(userId: string, request: SessionRequest): Promise<{ token: string }>;
}

/** Moves a signed-in state to another client: a 256-bit single-use token, bound to key, user and address. */
export class HandoffService {
  constructor(
    private readonly tickets: OneTimeValues,
    private readonly users: HandoffUsers,
    private readonly sessions: HandoffSessions,
    private readonly ttlMs = HANDOFF_TTL_MS,
  ) {}

  async create(userId: string, key: string, clientIp: string): Promise<string> {
    const token = randomSecret();
    const grant: HandoffGrant = { userId, keyDigest: digest(key), ip: clientIp };
    await this.tickets.put(keyOf(token), JSON.stringify(grant), this.ttlMs);
    return token;
  }

  async exchange(key: string, token: string, request: SessionRequest) {
    const stored = await this.tickets.take(keyOf(token));
    const grant = stored ? (JSON.parse(stored) as HandoffGrant) : undefined;
    // An unknown address never matches: the binding is to a real one.
    if (!grant || !sameDigest(grant.keyDigest, digest(key)) || !request.clientIp || grant.ip !== request.clientIp) throw INVALID_HANDOFF;
    const user = await this.users.findById(grant.userId);
    if (!user || user.disabled_at || user.deleted_at) throw INVALID_HANDOFF;
    const { token: sessionToken } = await this.sessions.create(user.id, request);
    return { token: sessionToken, user: partialUser(user) };
  }
}

const keyOf = (token: string) => `handoff:${digest(token)}`;
