import { createHash } from 'node:crypto';

/** Who a token belongs to, as auth answered. */
export interface TokenOwner {
  userId: string;
  sessionId: string;
  /** A bot account's token (sent as `Bot <token>`). */
  bot: boolean;
}

export type ValidateFn = (token: string, clientIp: string) => Promise<TokenOwner | null>;

export interface TokenCacheOptions {
  /** How long an answer is trusted while revocations may be missed; 0 turns the cache off. */
  ttlMs: number;
  /** How long a valid answer is trusted while the revocation feed is live (never below `ttlMs`). */
  feedTtlMs: number;
  maxEntries: number;
}

interface Entry {
  owner: TokenOwner | null;
  expiresAt: number;
}

/**
 * Remembers auth's answer for a token, and forgets a session the moment auth says it was revoked.
 * Concurrent requests with one token share one lookup. An answer that was in flight while its
 * session was revoked is not trusted, so a logout is never undone by a race.
 *
 * How long an answer is trusted depends on the revocation feed (auth's session events over NATS):
 * while it is live, every revocation evicts within milliseconds, so a valid answer is kept for
 * `feedTtlMs`. When the feed is lost, every entry is dropped (a revocation may have been missed)
 * and answers are kept only `ttlMs` (under a second) until it is back. Only a lookup that started
 * and ended with the feed live throughout gets the long TTL: one that overlapped an outage may
 * carry a session revoked while the edge was deaf.
 */
export class TokenCache {
  private readonly entries = new Map<string, Entry>();
  private readonly keysBySession = new Map<string, string>();
  private readonly inFlight = new Map<string, Promise<TokenOwner | null>>();
  private readonly recentlyRevoked = new Map<string, number>();
  private feedLive = false;
  /** Bumped on every change of the feed's state, so a lookup can tell it spanned one. */
  private feedEpoch = 0;
  /** Calls to auth, for tests and metrics. */
  lookups = 0;

  constructor(
    private readonly validate: ValidateFn,
    private readonly options: TokenCacheOptions,
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
    const until = this.now() + Math.max(this.options.ttlMs, 1000) * 2;
    for (const id of sessionIds) {
      this.recentlyRevoked.set(id, until);
      const key = this.keysBySession.get(id);
      if (key) this.entries.delete(key);
      this.keysBySession.delete(id);
    }
    this.sweepRevoked();
  }

  /** The revocation feed is live: every revocation from now on reaches `revoke()`. */
  feedUp(): void {
    if (this.feedLive) return;
    this.feedLive = true;
    this.feedEpoch++;
  }

  /** The feed is (or may be) lost: revocations may be missed, so nothing cached is trusted any more. */
  feedDown(): void {
    if (this.feedLive) this.feedEpoch++;
    this.feedLive = false;
    this.entries.clear();
    this.keysBySession.clear();
  }

  get feedIsLive(): boolean {
    return this.feedLive;
  }

  get size(): number {
    return this.entries.size;
  }

  private async lookup(key: string, token: string, clientIp: string): Promise<TokenOwner | null> {
    const epoch = this.feedLive ? this.feedEpoch : -1;
    try {
      this.lookups++;
      const owner = await this.validate(token, clientIp);
      if (owner && this.isRevoked(owner.sessionId)) return null;
      if (this.options.ttlMs > 0) {
        // A refusal keeps the short TTL: garbage tokens should not hold room for long.
        const long = owner !== null && epoch === this.feedEpoch && this.feedLive;
        this.store(key, owner, long ? Math.max(this.options.feedTtlMs, this.options.ttlMs) : this.options.ttlMs);
      }
      return owner;
    } finally {
      this.inFlight.delete(key);
    }
  }

  private store(key: string, owner: TokenOwner | null, ttlMs: number): void {
    if (this.entries.size >= this.options.maxEntries) this.evictExpired();
    if (this.entries.size >= this.options.maxEntries) {
      // Still full of live entries: drop the oldest (Map keeps insertion order).
      const oldest = this.entries.entries().next().value;
      if (oldest !== undefined) this.forget(...oldest);
    }
    this.entries.delete(key);
    this.entries.set(key, { owner, expiresAt: this.now() + ttlMs });
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
