import type { DomainEvent } from '@kith/platform';
import type { ChannelInfo, WebhookRecord } from './webhook.types.js';
import type { AttachmentView, MessageRecord } from './message.types.js';

/** The webhooks' own data. Writes that change what clients see take the events to publish with them. */
export interface WebhookStore {
  byId(id: string): Promise<WebhookRecord | undefined>;
  byChannel(channelId: string): Promise<WebhookRecord[]>;
  byGuild(guildId: string): Promise<WebhookRecord[]>;
  /**
   * Inserts the webhook unless its channel already has `perChannel` or its guild `perGuild`
   * (counted under a lock of the guild, so concurrent creations cannot overshoot).
   */
  create(webhook: WebhookRecord, limits: WebhookLimits, events: DomainEvent[]): Promise<'created' | 'channel_full' | 'guild_full'>;
  /** Applies the changes; a move checks the target channel's limit as `create` does. */
  update(
    id: string,
    changes: WebhookChanges,
    limits: WebhookLimits,
    events: (updated: WebhookRecord) => DomainEvent[],
  ): Promise<WebhookRecord | 'gone' | 'channel_full'>;
  delete(id: string, events: (deleted: WebhookRecord) => DomainEvent[]): Promise<WebhookRecord | undefined>;
  /** Removes the webhooks of a channel, or of a guild, and their messages; returns the channels that had some. */
  deleteByChannel(channelId: string): Promise<number>;
  deleteByGuild(guildId: string): Promise<number>;
  /** Removes an application's webhooks in a guild with their messages; `events` for the channels that had them. */
  deleteByApplication(guildId: string, applicationId: string, events: (channelIds: string[]) => Promise<DomainEvent[]>): Promise<number>;
  saveAvatar(hash: string, contentType: string, data: Buffer): Promise<void>;
}

export interface WebhookLimits {
  perChannel: number;
  perGuild: number;
}

export interface WebhookChanges {
  name?: string;
  avatar?: string | null;
  channelId?: string;
}

/**
 * Every deletion of messages (and of what holds them: a webhook, a channel, a guild) queues their
 * files for removal from the object store in the same transaction (DeletionQueue).
 */
export interface MessageStore {
  /**
   * Saves the message with its events, if the webhook it was prepared with is still as it was
   * read (same token, channel, guild, name, avatar, owner); false, and nothing written, otherwise.
   */
  insert(message: MessageRecord, events: DomainEvent[], webhook: WebhookRecord): Promise<boolean>;
  get(webhookId: string, messageId: string): Promise<MessageRecord | undefined>;
  /** Saves the edit; `dropped` are the attachments it removed, whose files are queued for removal. */
  update(message: MessageRecord, events: DomainEvent[], dropped: AttachmentView[]): Promise<void>;
  delete(webhookId: string, messageId: string, events: (gone: MessageRecord) => DomainEvent[]): Promise<MessageRecord | undefined>;
}

export interface SweepOutcome {
  swept: number;
  /** Keys that could not be removed this time: retried later. */
  failed?: number;
  error?: unknown;
}

/** Files waiting to be removed from the object store, kept until they are. */
export interface DeletionQueue {
  /** Takes up to `limit` due keys no other worker holds, runs `remove` on them, and forgets them once it succeeds. */
  sweep(limit: number, remove: (keys: string[]) => Promise<void>): Promise<SweepOutcome>;
}

/** The guilds service: channels, permissions and who sees a channel. */
export interface GuildDirectory {
  channel(channelId: string): Promise<ChannelInfo | undefined>;
  /** The user's permissions in the channel, or undefined when they are not a member of its guild. */
  permissions(userId: string, guildId: string, channelId: string): Promise<bigint | undefined>;
  /** The ids of the users who can view the channel; a thread by guilds' rule for it (a private one: its members and moderators). */
  viewerIds(channelId: string): Promise<string[]>;
  /** A guild's id, name and icon hash, as a follower webhook shows its source guild; undefined when unknown. */
  guild(guildId: string): Promise<GuildSummary | undefined>;
  /** The ids of the guild's roles. */
  roleIds(guildId: string): Promise<Set<string>>;
  /** Unarchives a thread a webhook posts into. */
  unarchiveThread(threadId: string): Promise<void>;
  /** Starts a forum (or media channel) post for a webhook's message; the thread's id is the message's. */
  createForumThread(thread: { channelId: string; threadId: string; name: string; appliedTags: string[]; ownerId: string }): Promise<void>;
}

export interface GuildSummary {
  id: string;
  name: string;
  icon: string | null;
}

/** Users as auth renders them (the platform's partial user). */
export interface UserDirectory {
  users(ids: string[]): Promise<Map<string, unknown>>;
}

/** Seals and opens webhook tokens with the service's key. */
export interface TokenVault {
  seal(token: string): Buffer;
  open(sealed: Buffer): string;
}

/** An object kept by the object store. */
export interface StoredObject {
  body: NodeJS.ReadableStream;
  contentType: string;
  size: number;
}

/** Where attachments live: S3's protocol in production, a directory on disk under `npm start`. */
export interface ObjectStore {
  /** Stores the file at `path` (a local temporary file of `size` bytes) under `key`. */
  putFile(key: string, path: string, size: number, contentType: string): Promise<void>;
  get(key: string): Promise<StoredObject | undefined>;
  delete(keys: string[]): Promise<void>;
}
