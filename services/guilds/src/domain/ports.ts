import type { ContractUser, DomainEvent } from '@kith/platform';
import type { GuildPermissionContext, Overwrite } from './permissions.js';
import type {
  BanRecord,
  ChannelPatch,
  ChannelRecord,
  EmojiRecord,
  GuildColumns,
  GuildRecord,
  GuestRecord,
  GuildSnapshot,
  IdPage,
  JoinRequestRecord,
  MemberColumns,
  MemberRecord,
  MutualGuild,
  NewChannel,
  NewGuild,
  NewMember,
  NewRole,
  RoleColumns,
  RoleRecord,
  VerificationForm,
} from './records.js';

/**
 * The I/O of the guilds domain. A `GuildsUnit` reads and writes through repositories; outside a
 * transaction each call stands alone, inside one (`GuildsStore.transaction`) every call sees the
 * transaction's writes and locks. Lock order, everywhere: a user's memberships, then the guild row,
 * then channel rows.
 */

export interface GuildRepository {
  /** Locks the guild row until the transaction ends (role positions, counts, ownership change one at a time). */
  lock(guildId: string): Promise<GuildRecord | undefined>;
  /** Keeps the guild from being deleted until the transaction ends, without holding up other lockers (joins). */
  /**
   * The guild FOR KEY SHARE; with `lockingUser`, that user's membership lock (members' lockUser) is
   * taken in the same round trip (before the guild row is locked).
   */
  share(guildId: string, lockingUser?: string): Promise<GuildRecord | undefined>;
  get(guildId: string): Promise<GuildRecord | undefined>;
  insert(guild: NewGuild): Promise<void>;
  update(guildId: string, changes: GuildColumns): Promise<GuildRecord>;
  /** Replaces the guild's features (member verification switches its gate). */
  setFeatures(guildId: string, features: readonly string[]): Promise<GuildRecord>;
  /** Deletes the guild with everything in it (roles, channels, members, bans). */
  delete(guildId: string): Promise<void>;
  /** The user's guilds in id order, a page at a time. */
  listOf(userId: string, page: IdPage): Promise<GuildRecord[]>;
  /** Every role (id, permissions) of these guilds and the user's role ids in them: permission math over many guilds. */
  rolesAndMemberRoles(
    guildIds: readonly string[],
    userId: string,
  ): Promise<{ roles: { id: string; guild_id: string; permissions: string }[]; memberRoles: { guild_id: string; role_id: string }[] }>;
  idsOf(userId: string): Promise<string[]>;
  mutual(userId: string, otherUserId: string): Promise<MutualGuild[]>;
}

export interface RoleRepository {
  /** In position order, then id. */
  list(guildId: string): Promise<RoleRecord[]>;
  get(guildId: string, roleId: string): Promise<RoleRecord | undefined>;
  insert(role: NewRole): Promise<RoleRecord>;
  update(roleId: string, changes: RoleColumns): Promise<RoleRecord>;
  /** Moves several roles at once (distinct ids); answers the moved rows by id. */
  setPositions(guildId: string, moves: readonly { id: string; position: number }[]): Promise<Map<string, RoleRecord>>;
  /** Keeps these roles from being deleted until the transaction ends (roles about to be given). */
  share(roleIds: readonly string[]): Promise<void>;
  /** Deletes the role; members lose it. */
  delete(roleId: string): Promise<void>;
  /** Every role but `@everyone` from `position` up moves one higher. */
  shiftUp(guildId: string, from: number): Promise<void>;
}

export interface MemberRepository {
  /** Serialises every join, leave and create of one user until the transaction ends (the guild cap). */
  lockUser(userId: string): Promise<void>;
  countGuildsOf(userId: string): Promise<number>;
  /** What a join checks, in one read: their membership (if any), whether banned, how many guilds they are in. */
  standing(guildId: string, userId: string): Promise<{ member: MemberRecord | undefined; banned: boolean; guildCount: number }>;
  /** The guilds the user is in only through a temporary invite: flagged temporary, no role given since, not the owner. */
  temporaryGuildsOf(userId: string): Promise<string[]>;
  get(guildId: string, userId: string): Promise<MemberRecord | undefined>;
  /** In user id order, after an id. */
  list(guildId: string, after: string | null, limit: number): Promise<MemberRecord[]>;
  ids(guildId: string, after: string | null, limit: number): Promise<string[]>;
  /** Those of the ids that are members, in user id order. */
  byIds(guildId: string, userIds: readonly string[]): Promise<MemberRecord[]>;
  /** Adds the member with these roles (answered as stored); the guild's member count goes up. */
  insert(member: NewMember, roleIds: readonly string[]): Promise<MemberRecord>;
  /** False when they were not a member; otherwise the member count goes down. */
  delete(guildId: string, userId: string): Promise<boolean>;
  update(guildId: string, userId: string, changes: MemberColumns): Promise<void>;
  addRoles(guildId: string, userId: string, roleIds: readonly string[]): Promise<void>;
  removeRoles(guildId: string, userId: string, roleIds: readonly string[]): Promise<void>;
  ban(guildId: string, userId: string): Promise<BanRecord | undefined>;
  /** In user id order. */
  bans(guildId: string, page: IdPage): Promise<BanRecord[]>;
  /** False when the user was already banned (the reason stays as it was). */
  insertBan(ban: Pick<BanRecord, 'guild_id' | 'user_id' | 'reason'>): Promise<boolean>;
  deleteBan(guildId: string, userId: string): Promise<boolean>;
}

/** Member verification: a guild's form and the join requests of pending members. */
export interface VerificationRepository {
  form(guildId: string): Promise<VerificationForm | undefined>;
  /** Writes the fields given (a new version); the rest stay as they were. */
  saveForm(guildId: string, changes: { description?: string | null; form_fields?: unknown[] }): Promise<VerificationForm>;
  /** Starts the user's request (STARTED), replacing one left from an earlier membership. */
  startJoinRequest(request: Pick<JoinRequestRecord, 'id' | 'guild_id' | 'user_id'>): Promise<JoinRequestRecord>;
  /** The user's request, locked until the transaction ends. */
  lockJoinRequest(guildId: string, userId: string): Promise<JoinRequestRecord | undefined>;
  /** Records the answers and the request's new status. */
  submitJoinRequest(id: string, status: JoinRequestRecord['status'], responses: unknown[]): Promise<JoinRequestRecord>;
}

/** Guests' accesses (guest invites). */
export interface GuestRepository {
  /** False when the session already had access to the guild. */
  add(guest: GuestRecord): Promise<boolean>;
  /** Ends and answers the accesses that match every given key. */
  end(where: { guildId?: string; userId?: string; sessionId?: string }): Promise<GuestRecord[]>;
}

export interface ChannelRepository {
  /** Locks a channel for a change: its guild row first, then the channel's row. */
  lock(channelId: string): Promise<void>;
  /** With `forUpdate`, the row stays locked until the transaction ends. */
  get(channelId: string, forUpdate?: boolean): Promise<ChannelRecord | undefined>;
  /** A guild's channels (threads excluded) in the platform's order: position, then id. */
  listInGuild(guildId: string): Promise<ChannelRecord[]>;
  /** Channels (threads do not count) of a guild, or of a category. */
  countInGuild(guildId: string): Promise<number>;
  countInCategory(categoryId: string): Promise<number>;
  nextPosition(guildId: string): Promise<number>;
  insert(channel: NewChannel): Promise<ChannelRecord>;
  /** Writes the patch; an empty one just reads the channel. */
  update(channelId: string, patch: ChannelPatch): Promise<ChannelRecord>;
  /** Deletes a channel and its threads; channels of a deleted category are left without one. */
  delete(channel: ChannelRecord): Promise<void>;
  overwrites(channelId: string): Promise<Overwrite[]>;
  /** Overwrites of several channels at once (every id present in the answer). */
  overwritesOf(channelIds: readonly string[]): Promise<Map<string, Overwrite[]>>;
  /** listInGuild and overwritesOf in one round trip: the guild's non-thread channels with their overwrites. */
  listInGuildWithOverwrites(guildId: string): Promise<{ rows: ChannelRecord[]; overwrites: Map<string, Overwrite[]> }>;
  replaceOverwrites(channelId: string, overwrites: readonly Overwrite[]): Promise<void>;
  putOverwrite(channelId: string, overwrite: Overwrite): Promise<void>;
  deleteOverwrite(channelId: string, targetId: string): Promise<boolean>;
  /** The guild's channels with an overwrite for `targetId`, locked, in id order. */
  withOverwriteFor(guildId: string, targetId: string): Promise<ChannelRecord[]>;
  /** The guild's unarchived threads, newest first. */
  activeThreads(guildId: string): Promise<ChannelRecord[]>;
  /** A channel's archived public threads archived before a time, newest archive first. */
  archivedPublicThreads(parentId: string, before: string, limit: number): Promise<ChannelRecord[]>;
  snapshot(guildId: string): Promise<GuildSnapshot | undefined>;
}

export interface DmRepository {
  /** Serialises opening the DM of one pair until the transaction ends. */
  lockPair(low: string, high: string): Promise<void>;
  findPair(low: string, high: string): Promise<string | undefined>;
  insertPair(low: string, high: string, channelId: string): Promise<void>;
  /** Everyone in a private channel: a DM's pair, a group DM's recipients in the order they joined. */
  participants(channel: ChannelRecord): Promise<string[]>;
  /** False when they already were a recipient. */
  addRecipient(channelId: string, userId: string): Promise<boolean>;
  removeRecipient(channelId: string, userId: string): Promise<boolean>;
  /** Closes a DM for one of its users (they stay a recipient). */
  close(channelId: string, userId: string): Promise<void>;
  /** False when it was open. */
  reopen(channelId: string, userId: string): Promise<boolean>;
  /** The private channels the user has open, most recent first. */
  listOpen(userId: string): Promise<ChannelRecord[]>;
}

/** A user's standing in a guild, as permission decisions need it. */
export interface GuildAccess {
  guildId: string;
  ownerId: string;
  /** Null when the user is not a member. */
  ctx: GuildPermissionContext | null;
  /** The user's guild-level permissions (0 for non-members). */
  permissions: bigint;
}

export interface ChannelAccess {
  channel: ChannelRecord;
  /** The guild's access for the user; undefined for DMs and group DMs. */
  guild?: GuildAccess;
  /** For private channels: whether the user is a recipient. For guild channels: a member. */
  member: boolean;
  /** The user's permissions in the channel (for a thread, its parent's overwrites). */
  permissions: bigint;
}

/** Reads what permission decisions need (domain/permissions.ts decides). */
export interface AccessReader {
  /** Undefined when no such guild. */
  guild(guildId: string, userId: string): Promise<GuildAccess | undefined>;
  /** Undefined when no such channel. */
  channel(channelId: string, userId: string): Promise<ChannelAccess | undefined>;
}

/** CheckPermissions' answer: `member` is false for an unknown guild or channel, a channel of another guild, a non-member. */
export interface PermissionCheck {
  member: boolean;
  permissions: bigint;
}

/** The permission check other services call on every request: outside any transaction, as fast as it can be. */
export interface PermissionChecker {
  check(userId: string, guildId: string, channelId?: string): Promise<PermissionCheck>;
}

/** Custom emojis (for now only those integrations manage). */
export interface EmojiRepository {
  /** The guild's emojis, by id. */
  list(guildId: string): Promise<EmojiRecord[]>;
  /** The emojis of each of these guilds, by id, in one read (guilds without any are left out). */
  listMany(guildIds: readonly string[]): Promise<Map<string, EmojiRecord[]>>;
  /** The integration's emojis in the guild. */
  ofIntegration(guildId: string, integrationId: string): Promise<EmojiRecord[]>;
  insert(emojis: readonly EmojiRecord[]): Promise<void>;
  update(emoji: EmojiRecord): Promise<void>;
  delete(ids: readonly string[]): Promise<void>;
}

/** Reads and writes: plain calls outside a transaction, or one transaction's. */
export interface GuildsUnit {
  emojis: EmojiRepository;
  guilds: GuildRepository;
  roles: RoleRepository;
  members: MemberRepository;
  channels: ChannelRepository;
  dms: DmRepository;
  verification: VerificationRepository;
  guests: GuestRepository;
  access: AccessReader;
}

/** One transaction: its reads and writes, and the events it commits with them (outbox). */
export interface GuildsTx extends GuildsUnit {
  emit(events: DomainEvent[]): Promise<void>;
}

export interface GuildsStore extends GuildsUnit {
  /** Runs `fn` in one transaction: everything it wrote and emitted commits together, or nothing does. */
  transaction<T>(fn: (tx: GuildsTx) => Promise<T>): Promise<T>;
}

/** The account service, as guilds sees it (over gRPC). */
export interface UserDirectory {
  /** Users by id; ids auth does not know are left out. One batched call. */
  users(ids: readonly string[]): Promise<Map<string, ContractUser>>;
}

/** New snowflakes. */
export interface IdSource {
  next(): string;
}
