import type { ChannelData, ContractUser, DomainEvent, GuildData, MemberData } from '@kith/platform';
import type { InviteRecord, NewInvite } from './invite.types.js';

/** A user's permissions in a guild or one of its channels (guilds computes them). */
export interface PermissionAnswer {
  member: boolean;
  permissions: bigint;
}

export type AddMemberAnswer = { error: number } | { error: 0; alreadyMember: boolean; member: MemberData | undefined };

export type AddRecipientAnswer = { error: number } | { error: 0; alreadyRecipient: boolean; channel: ChannelData | undefined };

/** The guilds service: channels, guilds, permissions and joining. */
export interface GuildDirectory {
  channel(channelId: string): Promise<ChannelData | undefined>;
  guild(guildId: string): Promise<GuildData | undefined>;
  member(guildId: string, userId: string): Promise<MemberData | undefined>;
  permissions(userId: string, guildId: string, channelId?: string): Promise<PermissionAnswer>;
  /** Who can view the channel and has `required` there (the audience of its invites' events). */
  channelUsersWith(channelId: string, required: bigint): Promise<string[]>;
  addMember(
    guildId: string,
    userId: string,
    options: { roleIds: string[]; temporary: boolean; guest: boolean; channelId: string; bypassVerification: boolean; sessionId: string },
  ): Promise<AddMemberAnswer>;
  addRecipient(channelId: string, userId: string): Promise<AddRecipientAnswer>;
}

/** The social graph: friendships made by friend invites, blocks, friends. */
export interface SocialDirectory {
  /** Makes the two friends (RELATIONSHIP_ADD to both, from social); false when they already were. Throws social's refusal. */
  befriend(userId: string, inviterId: string): Promise<boolean>;
  /** Whether `userId` blocks `otherId`. */
  blocks(userId: string, otherId: string): Promise<boolean>;
  friendIds(userId: string): Promise<string[]>;
}

/** The account service: users by id, unknown ids left out. */
export interface UserDirectory {
  users(ids: readonly string[]): Promise<Map<string, ContractUser>>;
  /** Which of these ids (at most 10,000) no account has: existence alone, for files of many users. */
  unknownIds(ids: readonly string[]): Promise<string[]>;
}

/** What ends an invite's life in the store: its INVITE_DELETE, written with the change. */
export type EventsOf = (invite: InviteRecord) => DomainEvent[];

export type CreateOutcome = { invite: InviteRecord } | { limit: true } | { codeTaken: true };

/** The invites table. Live means not deleted, not expired and not used up. */
export interface InviteStore {
  /**
   * Stores a new invite and its events in one transaction, refusing when the guild already has
   * `maxPerGuild` live invites (serialised per guild). A given code that is taken is refused.
   */
  create(invite: NewInvite, maxPerGuild: number, events: EventsOf): Promise<CreateOutcome>;
  /** A live invite of the same inviter and channel with exactly these settings (`unique: false`). */
  findReusable(invite: NewInvite): Promise<InviteRecord | undefined>;
  get(code: string): Promise<InviteRecord | undefined>;
  /** Sets IS_VIEWED once. */
  markViewed(code: string): Promise<void>;
  listByGuild(guildId: string): Promise<InviteRecord[]>;
  listByChannel(channelId: string): Promise<InviteRecord[]>;
  listFriendInvites(inviterId: string): Promise<InviteRecord[]>;
  /** Deletes a live invite and writes its events; undefined when it was not live. */
  delete(code: string, events: EventsOf): Promise<InviteRecord | undefined>;
  /** Deletes every live invite of a guild or a channel (they went away), with events. */
  deleteWhere(where: { guildId?: string; channelId?: string }, events: EventsOf): Promise<InviteRecord[]>;
  revokeFriendInvites(inviterId: string, events: EventsOf): Promise<InviteRecord[]>;
  /**
   * Reserves one use of a live limited invite for `userId`, atomically: undefined when it is gone
   * or every use is taken (in flight ones too). The reservation (its id) ends in `confirmUse` or
   * `releaseUse`, or, once `ttlMs` has passed, is settled by the reconciler.
   */
  reserveUse(code: string, userId: string, ttlMs: number): Promise<{ invite: InviteRecord; reservation: string } | undefined>;
  /** Gives the reserved use back (no-op when the reconciler settled it already). */
  releaseUse(reservation: string): Promise<void>;
  /**
   * A use happened: counted once (a reservation the reconciler settled already is not counted
   * again); without a reservation (unlimited invites) it just counts. An invite with every use
   * taken is deleted, with its events.
   */
  confirmUse(code: string, reservation: string | null, events: EventsOf): Promise<void>;
  /** Claims up to `limit` expired reservations for `leaseMs` (replicas claim different ones). */
  claimExpiredReservations(limit: number, leaseMs: number): Promise<UseReservation[]>;
}

/** A reserved use of an invite, as the reconciler sees it. */
export interface UseReservation {
  id: string;
  code: string;
  userId: string;
  invite: InviteRecord;
}
