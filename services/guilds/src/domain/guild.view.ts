import {
  guildView,
  memberView,
  roleView,
  userView,
  type ContractUser,
  type EmojiData,
  type GuildData,
  type MemberData,
  type RoleData,
} from '@kith/platform';
import type { BanRecord, EmojiRecord, GuildRecord, MemberRecord, RoleRecord } from './records.js';

/** The platform's cap on a guild's members. */
export const MAX_MEMBERS = 500_000;

/** A role as the contract carries it; permissions as a decimal string. */
export function toRole(role: RoleRecord): RoleData {
  return {
    id: role.id,
    name: role.name,
    permissions: role.permissions,
    position: role.position,
    color: role.color,
    hoist: role.hoist,
    managed: role.managed,
    mentionable: role.mentionable,
    icon: role.icon ?? '',
    unicodeEmoji: role.unicode_emoji ?? undefined,
    flags: role.flags,
    botId: role.bot_id ?? undefined,
    integrationId: role.integration_id ?? undefined,
  };
}

/** A custom emoji as guilds' contract carries it (custom emojis always need colons). */
export function toEmoji(emoji: EmojiRecord): EmojiData {
  return {
    id: emoji.id,
    name: emoji.name,
    roleIds: emoji.role_ids,
    managed: emoji.managed,
    animated: emoji.animated,
    available: emoji.available,
    requireColons: true,
  };
}

/**
 * The guild as the contract carries it, with its roles. Presence lives in realtime, which this
 * service does not ask: the presence count is a lower bound of 0 until presence is wired in.
 */
export function toGuild(guild: GuildRecord, roles: readonly RoleRecord[], emojis: readonly EmojiRecord[] = []): GuildData {
  return {
    id: guild.id,
    name: guild.name,
    icon: guild.icon ?? '',
    ownerId: guild.owner_id,
    approximateMemberCount: guild.member_count,
    approximatePresenceCount: 0,
    features: guild.features,
    description: guild.description ?? undefined,
    splash: guild.splash ?? '',
    banner: guild.banner ?? '',
    afkChannelId: guild.afk_channel_id ?? '',
    afkTimeout: guild.afk_timeout,
    systemChannelId: guild.system_channel_id ?? '',
    systemChannelFlags: guild.system_channel_flags,
    rulesChannelId: guild.rules_channel_id ?? '',
    publicUpdatesChannelId: guild.public_updates_channel_id ?? '',
    verificationLevel: guild.verification_level,
    defaultMessageNotifications: guild.default_message_notifications,
    explicitContentFilter: guild.explicit_content_filter,
    mfaLevel: guild.mfa_level,
    nsfwLevel: guild.nsfw_level,
    preferredLocale: guild.preferred_locale,
    premiumProgressBarEnabled: guild.premium_progress_bar_enabled,
    premiumTier: guild.premium_tier,
    premiumSubscriptionCount: guild.premium_subscription_count,
    maxMembers: MAX_MEMBERS,
    roles: roles.map(toRole),
    emojis: emojis.map(toEmoji),
    vanityUrlCode: '',
  };
}

/** A member as the contract carries it; `user` where the member is shown. */
export function toMember(member: MemberRecord, user?: ContractUser): MemberData {
  return {
    userId: member.user_id,
    nick: member.nick ?? '',
    roleIds: member.role_ids,
    joinedAt: member.joined_at.toISOString(),
    pending: member.pending,
    temporary: member.temporary,
    flags: member.flags,
    avatar: member.avatar ?? '',
    premiumSince: member.premium_since?.toISOString(),
    deaf: member.deaf,
    mute: member.mute,
    communicationDisabledUntil: member.communication_disabled_until?.toISOString(),
    user,
  };
}

export const renderRole = (role: RoleRecord) => roleView(toRole(role));

/** The platform's guild object (what GET /guilds/{id} answers), with its roles. */
export const renderGuild = (guild: GuildRecord, roles: readonly RoleRecord[], emojis: readonly EmojiRecord[], withCounts = false) =>
  guildView(toGuild(guild, roles, emojis), { withCounts });

/** The platform's guild member object, with the user embedded (undefined: a deleted account). */
export const renderMember = (member: MemberRecord, user: ContractUser | undefined) => memberView(toMember(member, user));

/** An entry of GET /users/@me/guilds: the partial guild with the caller's `owner` and `permissions`. */
export function renderUserGuild(guild: GuildRecord, userId: string, permissions: bigint, withCounts: boolean): Record<string, unknown> {
  return {
    id: guild.id,
    name: guild.name,
    icon: guild.icon,
    banner: guild.banner,
    owner: guild.owner_id === userId,
    permissions: permissions.toString(),
    features: guild.features,
    ...(withCounts ? { approximate_member_count: guild.member_count, approximate_presence_count: 0 } : {}),
  };
}

export const renderBan = (ban: BanRecord, user: ContractUser | undefined) => ({ user: userView(ban.user_id, user), reason: ban.reason });
