import { createHash } from 'node:crypto';
import { relationshipView, type RelationshipData } from '@kith/platform';
import type { RelationshipStore } from './ports.js';
import { RelationshipType as T } from './relationship.types.js';
import { relationshipData } from './relationship.view.js';
import type { UserCache } from './user-cache.js';

/** A user's relationship list: the exact bytes GET /users/@me/relationships answers, and the list they render (READY's, over gRPC). */
export interface RenderedList {
  relationships: RelationshipData[];
  body: Buffer;
  /** Strong: the same bytes always have the same tag, on every replica. */
  etag: string;
}

export interface ListCacheOptions {
  /** Rendered lists kept at most this many bytes in all; the least recently used go first. */
  maxBytes: number;
  /** A list is rebuilt at least this often, like the users it shows (the same backstop). */
  ttlMs: number;
  now?: () => number;
}

interface Entry extends RenderedList {
  version: string;
  targets: string[];
  expires: number;
}

/** What an entry is charged: its bytes, and as much again for the list they were rendered from. */
const sizeOf = (entry: Entry): number => 2 * entry.body.length;

/**
 * Renders relationship lists and keeps them per user. A kept list is used only while
 *  - the user's relationship version (changed by the database in the same transaction as any of
 *    the user's rows, so one cheap read on every request) is still the one it was built at, and
 *  - none of the users it shows has changed since (their invalidation drops it here).
 * Each replica keeps its own; the version makes them agree with each other and with the database.
 */
export class RelationshipListCache {
  private readonly entries = new Map<string, Entry>();
  /** Who shows whom: target id → owners whose kept list contains that target. */
  private readonly shownIn = new Map<string, Set<string>>();
  private bytes = 0;
  private readonly now: () => number;

  constructor(
    private readonly store: Pick<RelationshipStore, 'list' | 'listVersion'>,
    private readonly users: UserCache,
    private readonly options: ListCacheOptions,
  ) {
    this.now = options.now ?? Date.now;
    users.onInvalidate((userId) => {
      if (userId === null) return this.dropAll();
      for (const owner of [...(this.shownIn.get(userId) ?? [])]) this.drop(owner);
    });
  }

  async get(userId: string): Promise<RenderedList> {
    const version = await this.store.listVersion(userId);
    const kept = this.entries.get(userId);
    if (kept && kept.version === version && kept.expires > this.now()) {
      // Most recently used last, so eviction takes the coldest.
      this.entries.delete(userId);
      this.entries.set(userId, kept);
      return kept;
    }
    return this.build(userId, version);
  }

  private async build(userId: string, version: string): Promise<RenderedList> {
    const stamp = this.users.begin();
    try {
      // Rows read after the version: they are at least as new as it, so keeping them under it
      // can never show an older list than the version promises (a newer version only rebuilds).
      const rows = (await this.store.list(userId)).filter((r) => r.type !== T.IMPLICIT);
      const targets = rows.map((r) => r.target_id);
      const users = await this.users.getUsers(targets);
      const relationships = rows.map((row) => relationshipData(row, users.get(row.target_id)));
      const body = Buffer.from(JSON.stringify(relationships.map(relationshipView)));
      const rendered = { relationships, body, etag: `"${createHash('sha1').update(body).digest('base64url')}"` };
      if (!this.users.changedSince(stamp, targets))
        this.keep(userId, { ...rendered, version, targets, expires: this.now() + this.options.ttlMs });
      return rendered;
    } finally {
      this.users.end(stamp);
    }
  }

  private keep(userId: string, entry: Entry): void {
    this.drop(userId);
    if (sizeOf(entry) > this.options.maxBytes) return;
    this.entries.set(userId, entry);
    this.bytes += sizeOf(entry);
    for (const target of entry.targets) {
      let owners = this.shownIn.get(target);
      if (!owners) this.shownIn.set(target, (owners = new Set()));
      owners.add(userId);
    }
    for (const coldest of this.entries.keys()) {
      if (this.bytes <= this.options.maxBytes) break;
      this.drop(coldest);
    }
  }

  private drop(userId: string): void {
    const entry = this.entries.get(userId);
    if (!entry) return;
    this.entries.delete(userId);
    this.bytes -= sizeOf(entry);
    for (const target of entry.targets) {
      const owners = this.shownIn.get(target);
      owners?.delete(userId);
      if (owners?.size === 0) this.shownIn.delete(target);
    }
  }

  private dropAll(): void {
    this.entries.clear();
    this.shownIn.clear();
    this.bytes = 0;
  }
}
