import { ChannelType } from '@kith/platform';
/**
 * What the guilds service keeps, as the domain reads and writes it (the store maps these to its
 * tables one to one). Ids are snowflakes as decimal strings; permission bitfields are read as
 * decimal strings and written as bigints.
 */

export interface GuildRecord {
  id: string;
  name: string;
  icon: string | null;
  banner: string | null;
  splash: string | null;
  description: string | null;
  owner_id: string;
  afk_channel_id: string | null;
  afk_timeout: number;
  system_channel_id: string | null;
  system_channel_flags: number;
  rules_channel_id: string | null;
  public_updates_channel_id: string | null;
  verification_level: number;
  default_message_notifications: number;
  explicit_content_filter: number;
  mfa_level: number;
  nsfw_level: number;
  preferred_locale: string;
  features: string[];
  premium_progress_bar_enabled: boolean;
  /** Boosts applied to the guild (billing reports them) and the tier they reach. */
  premium_subscription_count: number;
  premium_tier: number;
  member_count: number;
  created_at: Date;
}

/** What a guild create or edit writes (the store keeps the rest: counts, features, timestamps). */
export type GuildColumns = Partial<Omit<GuildRecord, 'id' | 'member_count' | 'created_at' | 'features'>>;
export type NewGuild = GuildColumns & Pick<GuildRecord, 'id' | 'name' | 'owner_id'>;

export interface RoleRecord {
  id: string;
  guild_id: string;
  name: string;
  color: number;
  hoist: boolean;
  icon: string | null;
  unicode_emoji: string | null;
  position: number;
  permissions: string;
  managed: boolean;
  mentionable: boolean;
  flags: number;
  /** A managed role's owner (the platform's role tags): a bot's integration role, or a streaming integration's. */
  bot_id?: string | null;
  integration_id?: string | null;
}

/** A guild's custom emoji; `integration_id` and `source_id` name the integration and provider emote it mirrors. */
export interface EmojiRecord {
  id: string;
  guild_id: string;
  name: string;
  role_ids: string[];
  managed: boolean;
  animated: boolean;
  available: boolean;
  integration_id: string | null;
  source_id: string | null;
  image_url: string | null;
}

type RoleSettable = Partial<Pick<RoleRecord, 'name' | 'color' | 'hoist' | 'icon' | 'unicode_emoji' | 'mentionable'>>;
export type RoleColumns = RoleSettable & { permissions?: bigint };
export type NewRole = RoleSettable &
  Pick<RoleRecord, 'id' | 'guild_id' | 'name' | 'position' | 'bot_id' | 'integration_id'> & { permissions: bigint; managed?: boolean };

/** A member, with their role ids (without `@everyone`, whose id is the guild's). */
export interface MemberRecord {
  guild_id: string;
  user_id: string;
  nick: string | null;
  avatar: string | null;
  joined_at: Date;
  premium_since: Date | null;
  deaf: boolean;
  mute: boolean;
  pending: boolean;
  flags: number;
  temporary: boolean;
  communication_disabled_until: Date | null;
  role_ids: string[];
}

export interface NewMember {
  guild_id: string;
  user_id: string;
  temporary?: boolean;
  flags?: number;
  /** Not yet past the guild's member verification gate. */
  pending?: boolean;
}

/** A guild's member verification form (the platform's form field objects as given). */
export interface VerificationForm {
  guild_id: string;
  description: string | null;
  form_fields: unknown[];
  version: Date;
}

/** One gateway session's guest access to a guild's voice channel (guest invites); not a membership. */
export interface GuestRecord {
  guild_id: string;
  user_id: string;
  session_id: string;
  channel_id: string;
}

/** A user's request to pass a guild's member verification gate. */
export interface JoinRequestRecord {
  id: string;
  guild_id: string;
  user_id: string;
  status: 'STARTED' | 'SUBMITTED' | 'REJECTED' | 'APPROVED';
  created_at: Date;
}

/** What a member edit writes (roles are set on their own). Timestamps as ISO 8601. */
export interface MemberColumns {
  nick?: string | null;
  /** Cleared when the member passes the verification gate. */
  pending?: boolean;
  mute?: boolean;
  deaf?: boolean;
  communication_disabled_until?: string | null;
}

export interface BanRecord {
  guild_id: string;
  user_id: string;
  reason: string | null;
  created_at: Date;
}

/** A thread's metadata as kept (the platform's JSON names). */
export interface StoredThreadMetadata {
  archived: boolean;
  auto_archive_duration: number;
  archive_timestamp: string;
  locked: boolean;
  invitable?: boolean;
  create_timestamp: string;
}

export interface StoredForumTag {
  id: string;
  name: string;
  moderated?: boolean;
  emoji_id?: string | null;
  emoji_name?: string | null;
}

export interface StoredReaction {
  emoji_id?: string | null;
  emoji_name?: string | null;
}

/** Every kind of channel: guild channels, threads (`parent_id` their channel), DMs and group DMs (no guild). */
export interface ChannelRecord {
  id: string;
  type: number;
  guild_id: string | null;
  position: number;
  name: string | null;
  topic: string | null;
  nsfw: boolean;
  last_message_id: string | null;
  bitrate: number | null;
  user_limit: number | null;
  rate_limit_per_user: number;
  parent_id: string | null;
  owner_id: string | null;
  icon: string | null;
  rtc_region: string | null;
  video_quality_mode: number | null;
  default_auto_archive_duration: number | null;
  default_thread_rate_limit_per_user: number | null;
  default_sort_order: number | null;
  default_forum_layout: number | null;
  default_reaction_emoji: StoredReaction | null;
  available_tags: StoredForumTag[] | null;
  applied_tags: string[] | null;
  thread_metadata: StoredThreadMetadata | null;
  message_count: number | null;
  member_count: number | null;
  flags: number;
  created_at: Date;
}

/** What a channel create writes; the rest takes the table's defaults. */
export type NewChannel = Partial<Omit<ChannelRecord, 'id' | 'type' | 'created_at'>> & Pick<ChannelRecord, 'id' | 'type'>;
/** What a channel change writes. */
export type ChannelPatch = Partial<Omit<ChannelRecord, 'id' | 'type' | 'created_at'>>;

/** The platform's channel types (one list, in the platform). */
export { ChannelType };

/** The thread types: queries that count or cascade over a guild's channels name them, so they live in one place. */
export const THREAD_TYPES: readonly number[] = [ChannelType.ANNOUNCEMENT_THREAD, ChannelType.PUBLIC_THREAD, ChannelType.PRIVATE_THREAD];

export const isThread = (type: number): boolean => THREAD_TYPES.includes(type);

/** The channel whose overwrites apply: a thread's parent, any other channel itself. */
export const overwriteSourceOf = (channel: Pick<ChannelRecord, 'id' | 'type' | 'parent_id'>): string =>
  isThread(channel.type) && channel.parent_id ? channel.parent_id : channel.id;

/** What deciding who sees a channel needs: the guild's owner, roles and every member's roles. */
export interface GuildSnapshot {
  guildId: string;
  ownerId: string;
  roles: Map<string, bigint>;
  members: { userId: string; roleIds: string[] }[];
}

/** A guild two users are both members of, with the other user's nickname there. */
export interface MutualGuild {
  id: string;
  memberCount: number;
  nick: string | null;
}

/** A page of a list in id order: `before`/`after` exclusive. */
export interface IdPage {
  before?: string;
  after?: string;
  limit: number;
}
