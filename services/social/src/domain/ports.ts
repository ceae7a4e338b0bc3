import type { DomainEvent } from '@kith/platform';
import type { FriendSourceFlags, PartialUser, RelationshipRow } from './relationship.types.js';

/** The account service, as social sees it (over gRPC). */
export interface UserDirectory {
  /** Partial users by id; unknown ids are left out. One batched call. */
  getUsers(ids: string[]): Promise<Map<string, PartialUser>>;
  findByUsername(username: string, discriminator: string | null): Promise<PartialUser | undefined>;
  friendSourceFlags(userId: string): Promise<FriendSourceFlags>;
}

/** A guild two users are both members of. */
export interface MutualGuild {
  id: string;
  memberCount: number;
}

/** The guild service: which guilds two users share (privacy settings, stranger requests). */
export interface GuildDirectory {
  /** Empty when they share none, or when guilds cannot answer (fail closed). */
  mutualGuilds(a: string, b: string): Promise<MutualGuild[]>;
}

/** One transaction: both users of a pair locked, rows read and written, events queued with them. */
export interface RelationshipTx {
  get(userId: string, targetId: string): Promise<RelationshipRow | undefined>;
  /** Both rows of a pair in one read: what `a` says of `b`, and what `b` says of `a`. */
  getPair(a: string, b: string): Promise<[RelationshipRow | undefined, RelationshipRow | undefined]>;
  /** Writes rows (one statement for all of them). */
  put(...rows: RelationshipRow[]): Promise<void>;
  delete(userId: string, targetId: string): Promise<void>;
  /** Friends of each of these users, in one read. */
  friendCounts(userIds: string[]): Promise<Map<string, number>>;
  mutualFriendCount(a: string, b: string): Promise<number>;
  /** Outgoing requests this user sent since a time, for the spam rule. */
  outgoingRequestsSince(userId: string, since: Date): Promise<number>;
  /** Queues an event; every queued one is written to the outbox at the end, in one statement, before commit. */
  emit(event: DomainEvent): Promise<void>;
}

export interface RelationshipStore {
  /** Runs `fn` in one transaction holding locks on every given user, taken in id order. */
  withUsersLocked<T>(userIds: string[], fn: (tx: RelationshipTx) => Promise<T>): Promise<T>;
  list(userId: string): Promise<RelationshipRow[]>;
  /**
   * A stamp of the user's whole list, changed in the same transaction as any of the user's rows;
   * equal stamps mean equal lists. '0' for a user who never had a row.
   */
  listVersion(userId: string): Promise<string>;
}
