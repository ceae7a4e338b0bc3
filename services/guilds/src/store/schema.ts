import type { ColumnType, Generated } from 'kysely';
import type { StoredForumTag, StoredReaction, StoredThreadMetadata } from '../domain/records.js';

type Id = ColumnType<string, string, string>;
/** 64-bit permission bitfields: PostgreSQL bigint, read as a decimal string, written as one (or a bigint). */
type Bits = ColumnType<string, string | bigint | undefined, string | bigint>;
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
/** jsonb: read parsed, written as JSON text. */
type Json<T> = ColumnType<T | null, string | null | undefined, string | null>;

export interface GuildsTable {
  id: Id;
  name: string;
  icon: string | null;
  banner: string | null;
  splash: string | null;
  description: string | null;
  owner_id: Id;
  afk_channel_id: string | null;
  afk_timeout: Generated<number>;
  system_channel_id: string | null;
  system_channel_flags: Generated<number>;
  rules_channel_id: string | null;
  public_updates_channel_id: string | null;
  verification_level: Generated<number>;
  default_message_notifications: Generated<number>;
  explicit_content_filter: Generated<number>;
  mfa_level: Generated<number>;
  nsfw_level: Generated<number>;
  preferred_locale: Generated<string>;
  features: Generated<string[]>;
  premium_progress_bar_enabled: Generated<boolean>;
  premium_subscription_count: Generated<number>;
  premium_tier: Generated<number>;
  created_at: Generated<Date>;
}

export interface RolesTable {
  id: Id;
  guild_id: Id;
  name: string;
  color: Generated<number>;
  hoist: Generated<boolean>;
  icon: string | null;
  unicode_emoji: string | null;
  position: Generated<number>;
  permissions: Bits;
  managed: Generated<boolean>;
  mentionable: Generated<boolean>;
  flags: Generated<number>;
  bot_id: Id | null;
  integration_id: Id | null;
}

export interface ChannelsTable {
  id: Id;
  type: number;
  guild_id: string | null;
  position: Generated<number>;
  name: string | null;
  topic: string | null;
  nsfw: Generated<boolean>;
  last_message_id: string | null;
  bitrate: number | null;
  user_limit: number | null;
  rate_limit_per_user: Generated<number>;
  parent_id: string | null;
  owner_id: string | null;
  icon: string | null;
  rtc_region: string | null;
  video_quality_mode: number | null;
  default_auto_archive_duration: number | null;
  default_thread_rate_limit_per_user: number | null;
  default_sort_order: number | null;
  default_forum_layout: number | null;
  default_reaction_emoji: Json<StoredReaction>;
  available_tags: Json<StoredForumTag[]>;
  applied_tags: string[] | null;
  thread_metadata: Json<StoredThreadMetadata>;
  message_count: number | null;
  member_count: number | null;
  flags: Generated<number>;
  created_at: Generated<Date>;
}

export interface ChannelRecipientsTable {
  channel_id: Id;
  user_id: Id;
  added_at: Generated<Date>;
}

export interface DmPairsTable {
  low_user_id: Id;
  high_user_id: Id;
  channel_id: Id;
}

/** A DM a user has closed: out of their private channel list, still readable (migrations/0011). */
export interface DmClosuresTable {
  channel_id: Id;
  user_id: Id;
  closed_at: Generated<Date>;
}

export interface PermissionOverwritesTable {
  channel_id: Id;
  target_id: Id;
  /** 0 role, 1 member. */
  type: number;
  allow: Bits;
  deny: Bits;
}

export interface MembersTable {
  guild_id: Id;
  user_id: Id;
  nick: string | null;
  avatar: string | null;
  joined_at: Timestamp;
  premium_since: NullableTimestamp;
  deaf: Generated<boolean>;
  mute: Generated<boolean>;
  pending: Generated<boolean>;
  flags: Generated<number>;
  temporary: Generated<boolean>;
  communication_disabled_until: NullableTimestamp;
}

export interface MemberRolesTable {
  guild_id: Id;
  user_id: Id;
  role_id: Id;
}

export interface BansTable {
  guild_id: Id;
  user_id: Id;
  reason: string | null;
  created_at: Generated<Date>;
}

export interface MemberVerificationFormsTable {
  guild_id: Id;
  description: string | null;
  form_fields: Generated<unknown>;
  version: Generated<Date>;
}

export interface GuildJoinRequestsTable {
  id: Id;
  guild_id: Id;
  user_id: Id;
  status: string;
  created_at: Generated<Date>;
  form_responses: Json<unknown[]>;
}

export interface GuildGuestsTable {
  guild_id: Id;
  user_id: Id;
  session_id: string;
  channel_id: Id;
  created_at: Generated<Date>;
}

export interface EmojisTable {
  id: Id;
  guild_id: Id;
  name: string;
  role_ids: Generated<string[]>;
  managed: Generated<boolean>;
  animated: Generated<boolean>;
  available: Generated<boolean>;
  integration_id: Id | null;
  source_id: string | null;
  image_url: string | null;
}

export interface GuildMemberCountsTable {
  guild_id: Id;
  slot: number;
  n: number;
}

export interface GuildsDatabase {
  guilds: GuildsTable;
  roles: RolesTable;
  channels: ChannelsTable;
  channel_recipients: ChannelRecipientsTable;
  dm_pairs: DmPairsTable;
  dm_closures: DmClosuresTable;
  permission_overwrites: PermissionOverwritesTable;
  members: MembersTable;
  member_roles: MemberRolesTable;
  bans: BansTable;
  member_verification_forms: MemberVerificationFormsTable;
  guild_join_requests: GuildJoinRequestsTable;
  guild_guests: GuildGuestsTable;
  guild_member_counts: GuildMemberCountsTable;
  emojis: EmojisTable;
}
