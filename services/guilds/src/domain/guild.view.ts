import type { GuildRow } from '../store/guilds.store.js';
import type { PartialUser } from './channel.view.js';
import type { MemberRow, BanRow } from '../store/members.store.js';
import type { RoleRow } from '../store/roles.store.js';

/** The platform's role object; permissions as a decimal string. */
export function renderRole(role: RoleRow): Record<string, unknown> {
  return {
    id: role.id,
    name: role.name,
    description: null,
    permissions: role.permissions,
    position: role.position,
    color: role.color,
    colors: { primary_color: role.color, secondary_color: null, tertiary_color: null },
    hoist: role.hoist,
    managed: role.managed,
    mentionable: role.mentionable,
    icon: role.icon,
    unicode_emoji: role.unicode_emoji,
    flags: role.flags,
  };
}

/** The platform's guild object (what GET /guilds/{id} answers), with its roles. */
export function renderGuild(guild: GuildRow, roles: readonly RoleRow[]): Record<string, unknown> {
  return {
    id: guild.id,
    name: guild.name,
    icon: guild.icon,
    description: guild.description,
    home_header: null,
    splash: guild.splash,
    discovery_splash: null,
    features: guild.features,
    banner: guild.banner,
    owner_id: guild.owner_id,
    application_id: null,
    region: 'deprecated',
    afk_channel_id: guild.afk_channel_id,
    afk_timeout: guild.afk_timeout,
    system_channel_id: guild.system_channel_id,
    system_channel_flags: guild.system_channel_flags,
    widget_enabled: false,
    widget_channel_id: null,
    verification_level: guild.verification_level,
    roles: roles.map(renderRole),
    emojis: [],
    stickers: [],
    default_message_notifications: guild.default_message_notifications,
    mfa_level: guild.mfa_level,
    explicit_content_filter: guild.explicit_content_filter,
    max_presences: null,
    max_members: 500_000,
    max_stage_video_channel_users: 50,
    max_video_channel_users: 25,
    vanity_url_code: null,
    premium_tier: 0,
    premium_subscription_count: 0,
    preferred_locale: guild.preferred_locale,
    rules_channel_id: guild.rules_channel_id,
    safety_alerts_channel_id: null,
    public_updates_channel_id: guild.public_updates_channel_id,
    hub_type: null,
    premium_progress_bar_enabled: guild.premium_progress_bar_enabled,
    latest_onboarding_question_id: null,
    incidents_data: null,
    nsfw: guild.nsfw_level === 1 || guild.nsfw_level === 3,
    nsfw_level: guild.nsfw_level,
  };
}

/**
 * The counts `with_counts` adds. Presence lives in realtime, which this service does not ask:
 * the presence count is a lower bound of 0 until presence is wired in.
 */
export const guildCounts = (guild: GuildRow) => ({ approximate_member_count: guild.member_count, approximate_presence_count: 0 });

/** An entry of GET /users/@me/guilds: the partial guild with the caller's `owner` and `permissions`. */
export function renderUserGuild(guild: GuildRow, userId: string, permissions: bigint): Record<string, unknown> {
  return {
    id: guild.id,
    name: guild.name,
    icon: guild.icon,
    banner: guild.banner,
    owner: guild.owner_id === userId,
    permissions: permissions.toString(),
    features: guild.features,
  };
}

/** The platform's guild member object, with the user embedded. */
export function renderMember(member: MemberRow, user: PartialUser): Record<string, unknown> {
  return {
    user,
    nick: member.nick,
    avatar: member.avatar,
    banner: null,
    roles: member.role_ids,
    joined_at: member.joined_at.toISOString(),
    premium_since: member.premium_since?.toISOString() ?? null,
    deaf: member.deaf,
    mute: member.mute,
    pending: member.pending,
    flags: member.flags,
    communication_disabled_until: member.communication_disabled_until?.toISOString() ?? null,
    unusual_dm_activity_until: null,
  };
}

export const renderBan = (ban: BanRow, user: PartialUser) => ({ user, reason: ban.reason });
