import type { Emoji, Guild, GuildCreate, Member, Role } from '@kith/proto/guilds/v1/guilds';
import { userView } from '../users.js';
import { channelView } from './channel.view.js';
import { orNull, type Plain } from './plain.js';

/**
 * The platform's guild, role and member objects, rendered from guilds' contract messages: the one
 * rendering the guilds service answers over HTTP and in events, and realtime in READY.
 */

export type GuildData = Plain<Guild>;
export type RoleData = Plain<Role>;
export type MemberData = Plain<Member>;
export type GuildCreateData = Plain<GuildCreate>;
export type EmojiData = Plain<Emoji>;

/** The platform's custom emoji object, as a guild's `emojis` and GUILD_EMOJIS_UPDATE carry it. */
export function emojiView(emoji: EmojiData) {
  return {
    id: emoji.id,
    name: emoji.name,
    roles: emoji.roleIds,
    require_colons: emoji.requireColons,
    managed: emoji.managed,
    animated: emoji.animated,
    available: emoji.available,
  };
}

export function roleView(role: RoleData) {
  return {
    id: role.id,
    name: role.name,
    description: role.description ?? null,
    permissions: role.permissions,
    position: role.position,
    color: role.color,
    colors: { primary_color: role.color, secondary_color: null, tertiary_color: null },
    hoist: role.hoist,
    managed: role.managed,
    mentionable: role.mentionable,
    icon: orNull(role.icon),
    unicode_emoji: role.unicodeEmoji ?? null,
    flags: role.flags,
    // The platform sends tags only on roles something owns.
    ...(role.botId ? { tags: { bot_id: role.botId } } : role.integrationId ? { tags: { integration_id: role.integrationId } } : {}),
  };
}

/** GET /guilds/{id}; `withCounts` adds the approximate counts (`with_counts=true`). */
export function guildView(guild: GuildData, options: { withCounts?: boolean } = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {
    id: guild.id,
    name: guild.name,
    icon: orNull(guild.icon),
    description: guild.description ?? null,
    home_header: null,
    splash: orNull(guild.splash),
    discovery_splash: null,
    features: guild.features,
    banner: orNull(guild.banner),
    owner_id: guild.ownerId,
    application_id: null,
    region: 'deprecated',
    afk_channel_id: orNull(guild.afkChannelId),
    afk_timeout: guild.afkTimeout,
    system_channel_id: orNull(guild.systemChannelId),
    system_channel_flags: guild.systemChannelFlags,
    widget_enabled: false,
    widget_channel_id: null,
    verification_level: guild.verificationLevel,
    roles: guild.roles.map(roleView),
    emojis: (guild.emojis ?? []).map(emojiView),
    stickers: [],
    default_message_notifications: guild.defaultMessageNotifications,
    mfa_level: guild.mfaLevel,
    explicit_content_filter: guild.explicitContentFilter,
    max_presences: null,
    max_members: guild.maxMembers,
    max_stage_video_channel_users: 50,
    max_video_channel_users: 25,
    vanity_url_code: orNull(guild.vanityUrlCode),
    premium_tier: guild.premiumTier,
    premium_subscription_count: guild.premiumSubscriptionCount,
    preferred_locale: guild.preferredLocale,
    rules_channel_id: orNull(guild.rulesChannelId),
    safety_alerts_channel_id: null,
    public_updates_channel_id: orNull(guild.publicUpdatesChannelId),
    hub_type: null,
    premium_progress_bar_enabled: guild.premiumProgressBarEnabled,
    latest_onboarding_question_id: null,
    incidents_data: null,
    // Levels 1 (explicit) and 3 (age restricted) are the NSFW ones.
    nsfw: guild.nsfwLevel === 1 || guild.nsfwLevel === 3,
    nsfw_level: guild.nsfwLevel,
  };
  if (options.withCounts) {
    body.approximate_member_count = guild.approximateMemberCount;
    body.approximate_presence_count = guild.approximatePresenceCount;
  }
  return body;
}

/** The guild member object, the user embedded (a deleted account renders as one). */
export function memberView(member: MemberData) {
  return {
    user: userView(member.userId, member.user),
    nick: orNull(member.nick),
    avatar: orNull(member.avatar),
    banner: null,
    roles: member.roleIds,
    joined_at: member.joinedAt,
    premium_since: member.premiumSince ?? null,
    deaf: member.deaf,
    mute: member.mute,
    pending: member.pending,
    flags: member.flags,
    communication_disabled_until: member.communicationDisabledUntil ?? null,
    unusual_dm_activity_until: null,
  };
}

/** A guild as GUILD_CREATE and READY carry it for one member. */
export function guildCreateView(data: GuildCreateData & { guild: GuildData }): Record<string, unknown> {
  return {
    ...guildView(data.guild),
    joined_at: data.joinedAt,
    large: data.large,
    unavailable: false,
    member_count: data.guild.approximateMemberCount,
    voice_states: [],
    members: data.members.map(memberView),
    channels: data.channels.map((c) => channelView(c)),
    threads: data.threads.map((c) => channelView(c)),
    presences: [],
    stage_instances: [],
    guild_scheduled_events: [],
    embedded_activities: [],
    soundboard_sounds: [],
  };
}
