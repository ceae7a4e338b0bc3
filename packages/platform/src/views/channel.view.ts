import type { Channel, ThreadMetadata } from '@kith/proto/guilds/v1/guilds';
import { userView } from '../users.js';
import { orNull, type Plain } from './plain.js';

export type ChannelData = Plain<Channel>;

/** The platform's channel types: one list for every service (guilds keeps channels; invites and webhooks point at them). */
export const ChannelType = {
  GUILD_TEXT: 0,
  DM: 1,
  GUILD_VOICE: 2,
  GROUP_DM: 3,
  GUILD_CATEGORY: 4,
  GUILD_ANNOUNCEMENT: 5,
  ANNOUNCEMENT_THREAD: 10,
  PUBLIC_THREAD: 11,
  PRIVATE_THREAD: 12,
  GUILD_STAGE_VOICE: 13,
  GUILD_DIRECTORY: 14,
  GUILD_FORUM: 15,
  GUILD_MEDIA: 16,
} as const;

const {
  DM,
  GUILD_VOICE,
  GROUP_DM,
  GUILD_CATEGORY,
  ANNOUNCEMENT_THREAD,
  PUBLIC_THREAD,
  PRIVATE_THREAD,
  GUILD_STAGE_VOICE,
  GUILD_FORUM,
  GUILD_MEDIA,
} = ChannelType;

const isThread = (type: number) => type === ANNOUNCEMENT_THREAD || type === PUBLIC_THREAD || type === PRIVATE_THREAD;

function threadMetadataView(m: Plain<ThreadMetadata> | undefined) {
  if (!m) return null;
  return {
    archived: m.archived,
    auto_archive_duration: m.autoArchiveDuration,
    archive_timestamp: m.archiveTimestamp,
    locked: m.locked,
    ...(m.invitable !== undefined ? { invitable: m.invitable } : {}),
    create_timestamp: m.createTimestamp,
  };
}

/** A private channel's recipients as `viewerId` sees them: everyone but the viewer. */
function recipientViews(channel: ChannelData, viewerId: string | null) {
  const users = new Map(channel.recipients.map((u) => [u.id, u]));
  return channel.recipientIds.filter((id) => id !== viewerId).map((id) => userView(id, users.get(id)));
}

function privateChannelView(channel: ChannelData, base: Record<string, unknown>, viewerId: string | null) {
  base.last_message_id = orNull(channel.lastMessageId);
  base.recipients = recipientViews(channel, viewerId);
  if (channel.type === GROUP_DM) {
    base.name = orNull(channel.name);
    base.icon = orNull(channel.icon);
    base.owner_id = orNull(channel.ownerId);
  }
  return base;
}

function threadView(channel: ChannelData, base: Record<string, unknown>) {
  base.owner_id = orNull(channel.ownerId);
  base.last_message_id = orNull(channel.lastMessageId);
  base.rate_limit_per_user = channel.rateLimitPerUser;
  base.message_count = channel.messageCount;
  base.member_count = channel.memberCount;
  // Messages ever sent, deletions included; no message is deleted here yet, so as message_count.
  base.total_message_sent = channel.messageCount;
  base.thread_metadata = threadMetadataView(channel.threadMetadata);
  if (channel.appliedTags) base.applied_tags = channel.appliedTags.tagIds;
  return base;
}

function forumFields(channel: ChannelData, base: Record<string, unknown>) {
  base.available_tags = channel.availableTags.map((t) => ({
    id: t.id,
    name: t.name,
    moderated: t.moderated,
    emoji_id: t.emojiId ?? null,
    emoji_name: t.emojiName ?? null,
  }));
  const reaction = channel.defaultReactionEmoji;
  base.default_reaction_emoji = reaction ? { emoji_id: reaction.emojiId ?? null, emoji_name: reaction.emojiName ?? null } : null;
  base.default_sort_order = channel.defaultSortOrder ?? null;
  base.default_forum_layout = channel.defaultForumLayout;
  base.default_thread_rate_limit_per_user = channel.defaultThreadRateLimitPerUser;
}

/**
 * The platform's channel object: guild channels carry `guild_id`, `position`,
 * `permission_overwrites`; threads `thread_metadata`; DMs and group DMs `recipients` (never the
 * viewer themself; every recipient without a viewer).
 */
export function channelView(channel: ChannelData, viewerId: string | null = null): Record<string, unknown> {
  const base: Record<string, unknown> = { id: channel.id, type: channel.type, flags: channel.flags };
  if (channel.type === DM || channel.type === GROUP_DM) return privateChannelView(channel, base, viewerId);
  base.guild_id = channel.guildId;
  base.name = orNull(channel.name);
  base.parent_id = orNull(channel.parentId);
  base.nsfw = channel.nsfw;
  if (isThread(channel.type)) return threadView(channel, base);
  base.position = channel.position;
  base.permission_overwrites = channel.permissionOverwrites.map((o) => ({ id: o.id, type: o.type, allow: o.allow, deny: o.deny }));
  if (channel.type !== GUILD_CATEGORY) {
    base.last_message_id = orNull(channel.lastMessageId);
    base.rate_limit_per_user = channel.rateLimitPerUser;
  }
  if (channel.type === GUILD_VOICE || channel.type === GUILD_STAGE_VOICE) {
    base.bitrate = channel.bitrate ?? null;
    base.user_limit = channel.userLimit ?? null;
    base.rtc_region = orNull(channel.rtcRegion);
  } else if (channel.type !== GUILD_CATEGORY) {
    base.topic = channel.topic ?? null;
  }
  if (channel.type === GUILD_FORUM || channel.type === GUILD_MEDIA) forumFields(channel, base);
  if (channel.defaultAutoArchiveDuration !== 0) base.default_auto_archive_duration = channel.defaultAutoArchiveDuration;
  return base;
}
