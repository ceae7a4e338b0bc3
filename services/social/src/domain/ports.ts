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
  /** The second user's nickname there (profiles show it); unset when unknown. */
  nick?: string | null;
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
  /**
   * Everything a request or an accept decides on, in one read: both rows of the pair, both users'
   * friend counts, and on request their mutual friends and the outgoing requests `a` sent since a
   * time (the spam rule; 0 when `outgoingSince` is null).
   */
  pairState(a: string, b: string, options: { mutualFriends: boolean; outgoingSince: Date | null }): Promise<PairState>;
  /** Queues an event; every queued one is written to the outbox at the end, in one statement, before commit. */
  emit(event: DomainEvent): Promise<void>;
}

export interface PairState {
  /** What `a` says of `b`. */
  mine: RelationshipRow | undefined;
  /** What `b` says of `a`. */
  theirs: RelationshipRow | undefined;
  /** Friends of `a` and of `b`. */
  friendCounts: [number, number];
  /** Friends `a` and `b` share (0 unless asked for). */
  mutualFriends: number;
  /** Outgoing requests `a` sent since `outgoingSince` (0 unless asked for). */
  outgoingSince: number;
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
