import { channelView, type ChannelData, type ContractUser } from '@kith/platform';
import type { Overwrite } from './permissions.js';
import type { ChannelRecord, StoredForumTag, StoredReaction, StoredThreadMetadata } from './records.js';

function threadMetadata(m: StoredThreadMetadata | null): ChannelData['threadMetadata'] {
  if (!m) return undefined;
  return {
    archived: m.archived,
    autoArchiveDuration: m.auto_archive_duration,
    archiveTimestamp: m.archive_timestamp,
    locked: m.locked,
    invitable: m.invitable,
    createTimestamp: m.create_timestamp,
  };
}

const tags = (stored: StoredForumTag[] | null): ChannelData['availableTags'] =>
  (stored ?? []).map((t) => ({
    id: t.id,
    name: t.name,
    moderated: t.moderated ?? false,
    emojiId: t.emoji_id ?? undefined,
    emojiName: t.emoji_name ?? undefined,
  }));

function reaction(r: StoredReaction | null): ChannelData['defaultReactionEmoji'] {
  if (!r) return undefined;
  return { emojiId: r.emoji_id ?? undefined, emojiName: r.emoji_name ?? undefined };
}

/**
 * A channel as the contract carries it. Private channels name every participant
 * (`participantIds`, in the order they joined) with the users auth knows of them.
 */
export function toChannel(
  row: ChannelRecord,
  overwrites: readonly Overwrite[] = [],
  participantIds: readonly string[] = [],
  users: ReadonlyMap<string, ContractUser> = new Map(),
): ChannelData {
  return {
    id: row.id,
    type: row.type,
    guildId: row.guild_id ?? '',
    parentId: row.parent_id ?? '',
    name: row.name ?? '',
    recipientIds: [...participantIds],
    ownerId: row.owner_id ?? '',
    flags: row.flags,
    lastMessageId: row.last_message_id ?? '',
    recipients: participantIds.flatMap((id) => users.get(id) ?? []),
    icon: row.icon ?? '',
    nsfw: row.nsfw,
    position: row.position,
    permissionOverwrites: overwrites.map((o) => ({ id: o.id, type: o.type, allow: o.allow.toString(), deny: o.deny.toString() })),
    topic: row.topic ?? undefined,
    rateLimitPerUser: row.rate_limit_per_user,
    bitrate: row.bitrate ?? undefined,
    userLimit: row.user_limit ?? undefined,
    rtcRegion: row.rtc_region ?? '',
    defaultAutoArchiveDuration: row.default_auto_archive_duration ?? 0,
    availableTags: tags(row.available_tags),
    defaultReactionEmoji: reaction(row.default_reaction_emoji),
    defaultSortOrder: row.default_sort_order ?? undefined,
    defaultForumLayout: row.default_forum_layout ?? 0,
    defaultThreadRateLimitPerUser: row.default_thread_rate_limit_per_user ?? 0,
    threadMetadata: threadMetadata(row.thread_metadata),
    messageCount: row.message_count ?? 0,
    memberCount: row.member_count ?? 0,
    appliedTags: row.applied_tags ? { tagIds: row.applied_tags } : undefined,
  };
}

/** A guild channel or thread as the platform renders it (threads and categories take no overwrites). */
export const renderChannel = (row: ChannelRecord, overwrites: readonly Overwrite[] = []) => channelView(toChannel(row, overwrites));
