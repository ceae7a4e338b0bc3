import { orNull, userView, type ChannelData, type ContractUser, type GuildData } from '@kith/platform';
import { InviteType, type InviteRecord } from './invite.types.js';

/** What an invite's rendering needs besides the invite: its guild, channel and users. */
export interface InviteContext {
  guild?: GuildData | undefined;
  channel?: ChannelData | undefined;
  users: ReadonlyMap<string, ContractUser>;
}

export interface ViewOptions {
  /** uses, max_uses, max_age, temporary, created_at (Create, the lists, Delete). */
  metadata?: boolean;
  /** approximate counts, and a group DM's recipients (Get Invite `with_counts`). */
  counts?: boolean;
}

/** The invite guild object: the guild as someone outside it may see it. */
export function inviteGuildView(guild: GuildData): Record<string, unknown> {
  return {
    id: guild.id,
    name: guild.name,
    splash: orNull(guild.splash),
    banner: orNull(guild.banner),
    description: guild.description ?? null,
    icon: orNull(guild.icon),
    features: guild.features,
    verification_level: guild.verificationLevel,
    vanity_url_code: orNull(guild.vanityUrlCode),
    nsfw_level: guild.nsfwLevel,
    nsfw: guild.nsfwLevel === 1 || guild.nsfwLevel === 3,
    premium_subscription_count: guild.premiumSubscriptionCount,
    premium_tier: guild.premiumTier,
  };
}

function channelView(channel: ChannelData | undefined, invite: InviteRecord, counts: boolean): Record<string, unknown> | null {
  if (!channel) return invite.channel_id ? { id: invite.channel_id, type: 0, name: null } : null;
  const view: Record<string, unknown> = { id: channel.id, type: channel.type, name: channel.name === '' ? null : channel.name };
  if (invite.type === InviteType.GROUP_DM) {
    if (channel.icon) view.icon = channel.icon;
    if (counts) view.recipients = channel.recipients.map((u) => ({ username: u.username }));
  }
  return view;
}

function rolesView(guild: GuildData | undefined, roleIds: readonly string[]): Record<string, unknown>[] {
  if (!guild || roleIds.length === 0) return [];
  const wanted = new Set(roleIds);
  return guild.roles
    .filter((r) => wanted.has(r.id))
    .map((r) => ({
      id: r.id,
      name: r.name,
      position: r.position,
      color: r.color,
      colors: { primary_color: r.color, secondary_color: null, tertiary_color: null },
      icon: orNull(r.icon),
      unicode_emoji: r.unicodeEmoji ?? null,
    }));
}

/** The platform's invite object (`metadata`: with the invite metadata block). */
export function inviteView(invite: InviteRecord, ctx: InviteContext, options: ViewOptions = {}): Record<string, unknown> {
  const { guild } = ctx;
  const view: Record<string, unknown> = {
    type: invite.type,
    code: invite.code,
    inviter: userView(invite.inviter_id, ctx.users.get(invite.inviter_id)),
    max_age: invite.max_age,
    created_at: invite.created_at.toISOString(),
    expires_at: invite.expires_at ? invite.expires_at.toISOString() : null,
    flags: invite.flags,
    channel: channelView(ctx.channel, invite, options.counts ?? false),
  };
  if (invite.type === InviteType.GUILD && invite.guild_id) {
    view.guild_id = invite.guild_id;
    if (guild) view.guild = inviteGuildView(guild);
    if (invite.target_type !== null) view.target_type = invite.target_type;
    if (invite.target_user_id) view.target_user = userView(invite.target_user_id, ctx.users.get(invite.target_user_id));
    if (invite.target_application_id) view.target_application = { id: invite.target_application_id };
    if (invite.role_ids.length > 0) view.roles = rolesView(guild, invite.role_ids);
  }
  if (options.counts) {
    if (invite.type === InviteType.GUILD && guild) {
      view.approximate_member_count = guild.approximateMemberCount;
      view.approximate_presence_count = guild.approximatePresenceCount;
    } else if (invite.type === InviteType.GROUP_DM && ctx.channel) {
      view.approximate_member_count = ctx.channel.recipientIds.length;
    }
  }
  if (options.metadata) {
    view.uses = invite.uses;
    view.max_uses = invite.max_uses;
    if (invite.type === InviteType.GUILD) view.temporary = invite.temporary;
  }
  return view;
}
