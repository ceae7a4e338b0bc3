import { ChannelType } from '@kith/platform';
/** What the webhooks service keeps of a webhook (the token only sealed and as a digest). */
export interface WebhookRecord {
  id: string;
  type: WebhookType;
  guildId: string;
  channelId: string;
  userId: string | null;
  name: string;
  avatar: string | null;
  applicationId: string | null;
  /** APPLICATION webhooks: the application's own user, the one caller shown the token by id. */
  applicationUserId?: string | null;
  tokenDigest: Buffer;
  tokenSealed: Buffer;
  sourceGuild: unknown;
  sourceChannel: unknown;
}

export const WebhookType = { INCOMING: 1, CHANNEL_FOLLOWER: 2, APPLICATION: 3 } as const;
export type WebhookType = (typeof WebhookType)[keyof typeof WebhookType];

/** The platform's channel types (one list, in the platform). */
export { ChannelType };

/** Channels a webhook can live in: text, announcement, voice and stage chats, forums and media channels. */
export const WEBHOOK_CHANNEL_TYPES: ReadonlySet<number> = new Set([
  ChannelType.GUILD_TEXT,
  ChannelType.GUILD_VOICE,
  ChannelType.GUILD_ANNOUNCEMENT,
  ChannelType.GUILD_STAGE_VOICE,
  ChannelType.GUILD_FORUM,
  ChannelType.GUILD_MEDIA,
]);
/** Channels a followed announcement channel's posts can go to. */
export const FOLLOW_TARGET_TYPES: ReadonlySet<number> = new Set([ChannelType.GUILD_TEXT, ChannelType.GUILD_ANNOUNCEMENT]);
export const THREAD_TYPES: ReadonlySet<number> = new Set([
  ChannelType.ANNOUNCEMENT_THREAD,
  ChannelType.PUBLIC_THREAD,
  ChannelType.PRIVATE_THREAD,
]);
export const THREAD_ONLY_TYPES: ReadonlySet<number> = new Set([ChannelType.GUILD_FORUM, ChannelType.GUILD_MEDIA]);

/** A channel as guilds describes it, as far as webhooks need it. */
export interface ChannelInfo {
  id: string;
  type: number;
  guildId: string;
  parentId: string;
  name: string;
  archived: boolean;
  locked: boolean;
  /** Forum and media channels: the ids of their tags. */
  tagIds: string[];
}

/** The permission bits webhooks check. */
export const Permission = {
  VIEW_CHANNEL: 1n << 10n,
  MANAGE_WEBHOOKS: 1n << 29n,
} as const;
