import type { PartialUser } from './relationship.types.js';

/** Where users come from when the cache does not have them (auth's batched GetUsers). */
export interface UserSource {
  getUsers(ids: string[]): Promise<Map<string, PartialUser>>;
}

export interface UserCacheOptions {
  /** A backstop: an entry is used at most this long, even if its invalidation never arrives. */
  ttlMs: number;
  /** Entries kept at most; the least recently used go first. */
  maxEntries: number;
  now?: () => number;
}

/** A point in the cache's history that a read started at; see `UserCache.begin`. */
export interface ReadStamp {
  readonly at: number;
}

interface Entry {
  user: PartialUser;
  expires: number;
}

/**
 * Partial users kept in process for rendering relationship lists. Auth announces every change of a
 * user (USER_UPDATE) and `invalidate` drops the entry; the TTL bounds what a lost announcement can
 * leave stale.
 *
 * A read that began before an invalidation may still bring back the old user: `begin` / `changedSince`
 * let it (and anything built from it) find out, so nothing older than an invalidation is ever kept.
 */
export class UserCache {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners: ((userId: string | null) => void)[] = [];
  private clock = 0;
  /** Ids invalidated while some read was in flight, with the clock of their invalidation. */
  private readonly changed = new Map<string, number>();
  private readsInFlight = 0;
  private clearedAt = 0;
  private readonly now: () => number;

  constructor(
    private readonly source: UserSource,
    private readonly options: UserCacheOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Called with every invalidated id (null: all of them), so caches built from users can drop what used them. */
  onInvalidate(listener: (userId: string | null) => void): void {
    this.listeners.push(listener);
  }

  invalidate(userId: string): void {
    this.clock += 1;
    this.entries.delete(userId);
    if (this.readsInFlight > 0) this.changed.set(userId, this.clock);
    for (const listener of this.listeners) listener(userId);
  }

  /** Forgets everything (after a gap in the announcements, when any entry may be stale). */
  clear(): void {
    this.clock += 1;
    // Every read in flight started before this point: none of them may keep what it saw.
    this.clearedAt = this.clock;
    this.entries.clear();
    for (const listener of this.listeners) listener(null);
  }

  begin(): ReadStamp {
    this.readsInFlight += 1;
    return { at: this.clock };
  }

  end(_stamp: ReadStamp): void {
    this.readsInFlight -= 1;
    if (this.readsInFlight === 0) this.changed.clear();
  }

  /** Whether any of these users was invalidated after the read stamped `stamp` began. */
  changedSince(stamp: ReadStamp, ids: Iterable<string>): boolean {
    if (this.clearedAt > stamp.at) return true;
    for (const id of ids) if ((this.changed.get(id) ?? 0) > stamp.at) return true;
    return false;
  }

  /** Users by id, from the cache where fresh and in one batched call for the rest. */
  async getUsers(ids: string[]): Promise<Map<string, PartialUser>> {
    const found = new Map<string, PartialUser>();
    const missing: string[] = [];
    const now = this.now();
    for (const id of new Set(ids)) {
      const entry = this.entries.get(id);
      if (entry && entry.expires > now) found.set(id, entry.user);
      else missing.push(id);
    }
    if (missing.length === 0) return found;
    const stamp = this.begin();
    try {
      const fetched = await this.source.getUsers(missing);
      const expires = this.now() + this.options.ttlMs;
      for (const [id, user] of fetched) {
        found.set(id, user);
        if (!this.changedSince(stamp, [id])) this.put(id, { user, expires });
      }
      return found;
    } finally {
      this.end(stamp);
    }
  }

  private put(id: string, entry: Entry): void {
    this.entries.delete(id);
    this.entries.set(id, entry);
    // Map order is insertion order: the first keys are the least recently fetched.
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.options.maxEntries) break;
      this.entries.delete(oldest);
    }
  }
}
