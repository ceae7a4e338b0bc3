import type { ChannelRow } from '../store/access.store.js';
import { ChannelType, isThread } from '../store/access.store.js';
import type { Overwrite } from './permissions.js';

/** A user as objects embed them (DM recipients, members): the platform's partial user. */
export interface PartialUser {
  id: string;
  username: string;
  discriminator: string;
  global_name: string | null;
  avatar: string | null;
  public_flags: number;
  bot?: boolean;
}

const renderOverwrite = (o: Overwrite) => ({ id: o.id, type: o.type, allow: o.allow.toString(), deny: o.deny.toString() });

/**
 * The channel object as the platform renders it: guild channels carry `guild_id`, `position`,
 * `permission_overwrites`; threads `thread_metadata`; DMs and group DMs `recipients` (never the
 * viewer themself).
 */
export function renderChannel(
  row: ChannelRow,
  overwrites: readonly Overwrite[] = [],
  recipients: readonly PartialUser[] = [],
): Record<string, unknown> {
  const base: Record<string, unknown> = { id: row.id, type: row.type, flags: row.flags };
  if (row.type === ChannelType.DM || row.type === ChannelType.GROUP_DM) {
    base.last_message_id = row.last_message_id;
    base.recipients = recipients;
    if (row.type === ChannelType.GROUP_DM) {
      base.name = row.name;
      base.icon = row.icon;
      base.owner_id = row.owner_id;
    }
    return base;
  }
  base.guild_id = row.guild_id;
  base.name = row.name;
  base.parent_id = row.parent_id;
  base.nsfw = row.nsfw;
  if (isThread(row.type)) {
    base.owner_id = row.owner_id;
    base.last_message_id = row.last_message_id;
    base.rate_limit_per_user = row.rate_limit_per_user;
    base.message_count = row.message_count ?? 0;
    base.member_count = row.member_count ?? 0;
    // Messages ever sent, deletions included; messages are not counted here yet, so as message_count.
    base.total_message_sent = row.message_count ?? 0;
    base.thread_metadata = row.thread_metadata;
    if (row.applied_tags) base.applied_tags = row.applied_tags;
    return base;
  }
  base.position = row.position;
  base.permission_overwrites = overwrites.map(renderOverwrite);
  if (row.type !== ChannelType.GUILD_CATEGORY) {
    base.last_message_id = row.last_message_id;
    base.rate_limit_per_user = row.rate_limit_per_user;
  }
  if (row.type === ChannelType.GUILD_VOICE || row.type === ChannelType.GUILD_STAGE_VOICE) {
    base.bitrate = row.bitrate;
    base.user_limit = row.user_limit;
    base.rtc_region = row.rtc_region;
  } else if (row.type !== ChannelType.GUILD_CATEGORY) {
    base.topic = row.topic;
  }
  if (row.type === ChannelType.GUILD_FORUM || row.type === ChannelType.GUILD_MEDIA) {
    base.available_tags = row.available_tags ?? [];
    base.default_reaction_emoji = row.default_reaction_emoji;
    base.default_sort_order = row.default_sort_order;
    base.default_forum_layout = row.default_forum_layout ?? 0;
    base.default_thread_rate_limit_per_user = row.default_thread_rate_limit_per_user ?? 0;
  }
  if (row.default_auto_archive_duration !== null) base.default_auto_archive_duration = row.default_auto_archive_duration;
  return base;
}
