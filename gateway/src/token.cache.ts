import { createHash } from 'node:crypto';

/** Who a token belongs to, as auth answered. */
export interface TokenOwner {
  userId: string;
  sessionId: string;
}

export type ValidateFn = (token: string, clientIp: string) => Promise<TokenOwner | null>;

interface Entry {
  owner: TokenOwner | null;
  expiresAt: number;
}

/**
 * Remembers auth's answer for a token for at most `ttlMs`, and forgets a session the moment auth
 * says it was revoked. Concurrent requests with one token share one lookup. An answer that was in
 * flight while its session was revoked is not trusted, so a logout is never undone by a race.
 */
export class TokenCache {
  private readonly entries = new Map<string, Entry>();
  private readonly keysBySession = new Map<string, string>();
  private readonly inFlight = new Map<string, Promise<TokenOwner | null>>();
  private readonly recentlyRevoked = new Map<string, number>();

  constructor(
    private readonly validate: ValidateFn,
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  async resolve(token: string, clientIp: string): Promise<TokenOwner | null> {
    const key = createHash('sha256').update(token).digest('base64');
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > this.now()) return cached.owner;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.lookup(key, token, clientIp);
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  /** Drops every cached token of these sessions; answers already on their way are refused. */
  revoke(sessionIds: Iterable<string>): void {
    const until = this.now() + Math.max(this.ttlMs, 1000) * 2;
    for (const id of sessionIds) {
      this.recentlyRevoked.set(id, until);
      const key = this.keysBySession.get(id);
      if (key) this.entries.delete(key);
      this.keysBySession.delete(id);
    }
    this.sweepRevoked();
  }

  get size(): number {
    return this.entries.size;
  }

  private async lookup(key: string, token: string, clientIp: string): Promise<TokenOwner | null> {
    try {
      const owner = await this.validate(token, clientIp);
      if (owner && this.isRevoked(owner.sessionId)) return null;
      if (this.ttlMs > 0) this.store(key, owner);
      return owner;
    } finally {
      this.inFlight.delete(key);
    }
  }

  private store(key: string, owner: TokenOwner | null): void {
    if (this.entries.size >= this.maxEntries) this.evictExpired();
    if (this.entries.size >= this.maxEntries) {
      // Still full of live entries: drop the oldest (Map keeps insertion order).
      const oldest = this.entries.entries().next().value;
      if (oldest !== undefined) this.forget(...oldest);
    }
    this.entries.set(key, { owner, expiresAt: this.now() + this.ttlMs });
    if (owner) this.keysBySession.set(owner.sessionId, key);
  }

  private evictExpired(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt <= now) this.forget(key, entry);
    }
  }

  /** Drops an entry and its session's index, so the index stays within the entries' bound. */
  private forget(key: string, entry: Entry): void {
    this.entries.delete(key);
    if (entry.owner && this.keysBySession.get(entry.owner.sessionId) === key) this.keysBySession.delete(entry.owner.sessionId);
  }

  private isRevoked(sessionId: string): boolean {
    const until = this.recentlyRevoked.get(sessionId);
    return until !== undefined && until > this.now();
  }

  private sweepRevoked(): void {
    const now = this.now();
    for (const [id, until] of this.recentlyRevoked) if (until <= now) this.recentlyRevoked.delete(id);
  }
}
