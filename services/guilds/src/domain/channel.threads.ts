import { ApiError } from '@kith/platform';
import { emitChannelEvent } from './channel.events.js';
import type { CreateThreadInput, ModifyChannelInput } from './channel.input.js';
import { seesThread, type ChannelService } from './channel.service.js';
import { renderChannel } from './channel.view.js';
import { guildErrors, invalidField } from './guild.errors.js';
import { channelPermissions, hasAll, Permission } from './permissions.js';
import type { ChannelAccess, GuildsStore, GuildsTx, IdSource } from './ports.js';
import { ChannelType, type ChannelPatch, type StoredThreadMetadata as ThreadMetadata } from './records.js';

const DEFAULT_AUTO_ARCHIVE = 4320;
const TEXT_PARENTS: readonly number[] = [ChannelType.GUILD_TEXT, ChannelType.GUILD_ANNOUNCEMENT];

/** The thread type a request asks for in this parent, or a 50035 / 50024 when it cannot be. */
function threadTypeFor(parentType: number, input: CreateThreadInput): number {
  if (parentType === ChannelType.GUILD_FORUM) {
    if (!input.message) throw invalidField('message', 'BASE_TYPE_REQUIRED', 'This field is required');
    return ChannelType.PUBLIC_THREAD;
  }
  if (!TEXT_PARENTS.includes(parentType)) throw guildErrors.wrongChannelType();
  // Without a type the platform starts a private thread (its first documented behaviour).
  const asked = input.type ?? ChannelType.PRIVATE_THREAD;
  if (parentType === ChannelType.GUILD_ANNOUNCEMENT) {
    if (asked === ChannelType.PRIVATE_THREAD) throw guildErrors.wrongChannelType();
    return ChannelType.ANNOUNCEMENT_THREAD;
  }
  if (asked === ChannelType.ANNOUNCEMENT_THREAD) throw invalidField('type', 'BASE_TYPE_CHOICES', 'Value must be one of {11, 12}.');
  return asked;
}

const requiredToStart = (parentType: number, type: number): bigint =>
  parentType === ChannelType.GUILD_FORUM
    ? Permission.SEND_MESSAGES
    : type === ChannelType.PRIVATE_THREAD
      ? Permission.CREATE_PRIVATE_THREADS
      : Permission.CREATE_PUBLIC_THREADS;

/** Threads: started in text, announcement and forum channels; they take their parent's permissions. */
export class ThreadService {
  constructor(
    private readonly store: GuildsStore,
    private readonly ids: IdSource,
    private readonly channels: ChannelService,
  ) {}

  async create(userId: string, parentId: string, input: CreateThreadInput): Promise<Record<string, unknown>> {
    return this.store.transaction(async (tx) => {
      const parent = await this.channels.visible(parentId, userId, tx);
      if (parent.channel.guild_id === null) throw guildErrors.wrongChannelType();
      const type = threadTypeFor(parent.channel.type, input);
      if (!hasAll(parent.permissions, requiredToStart(parent.channel.type, type))) throw ApiError.of('MISSING_PERMISSIONS');
      const now = new Date().toISOString();
      const metadata: ThreadMetadata = {
        archived: false,
        auto_archive_duration: input.auto_archive_duration ?? parent.channel.default_auto_archive_duration ?? DEFAULT_AUTO_ARCHIVE,
        archive_timestamp: now,
        locked: false,
        ...(type === ChannelType.PRIVATE_THREAD ? { invitable: input.invitable ?? true } : {}),
        create_timestamp: now,
      };
      const row = await tx.channels.insert({
        id: this.ids.next(),
        type,
        guild_id: parent.channel.guild_id,
        parent_id: parent.channel.id,
        owner_id: userId,
        name: input.name.trim(),
        rate_limit_per_user: input.rate_limit_per_user ?? 0,
        thread_metadata: metadata,
        message_count: 0,
        member_count: 1,
        applied_tags: parent.channel.type === ChannelType.GUILD_FORUM ? [] : null,
      });
      const parentOverwrites = await tx.channels.overwrites(parent.channel.id);
      const rendered = renderChannel(row);
      await emitChannelEvent(tx, 'THREAD_CREATE', row, [parentOverwrites], { ...rendered, newly_created: true });
      return rendered;
    });
  }

  /**
   * A webhook's forum (or media channel) post: a public thread whose id is its first message's,
   * owned by the webhook. Answers 0 or the platform's code (10003, 50024).
   */
  async startForWebhook(input: { parentId: string; threadId: string; name: string; appliedTags: string[]; ownerId: string }) {
    return this.store.transaction(async (tx) => {
      const parent = await tx.channels.get(input.parentId);
      if (!parent || parent.guild_id === null) return { errorCode: 10003 };
      if (parent.type !== ChannelType.GUILD_FORUM && parent.type !== ChannelType.GUILD_MEDIA) return { errorCode: 50024 };
      const now = new Date().toISOString();
      const row = await tx.channels.insert({
        id: input.threadId,
        type: ChannelType.PUBLIC_THREAD,
        guild_id: parent.guild_id,
        parent_id: parent.id,
        owner_id: input.ownerId,
        name: input.name.trim(),
        rate_limit_per_user: 0,
        thread_metadata: {
          archived: false,
          auto_archive_duration: parent.default_auto_archive_duration ?? DEFAULT_AUTO_ARCHIVE,
          archive_timestamp: now,
          locked: false,
          create_timestamp: now,
        },
        message_count: 0,
        member_count: 0,
        applied_tags: input.appliedTags,
      });
      const rendered = renderChannel(row);
      await emitChannelEvent(tx, 'THREAD_CREATE', row, [await tx.channels.overwrites(parent.id)], { ...rendered, newly_created: true });
      return { errorCode: 0, threadId: row.id };
    });
  }

  /** A webhook posts into an archived thread: it is unarchived unless locked (50083). Answers 0 or the code. */
  async unarchiveForWebhook(threadId: string): Promise<number> {
    return this.store.transaction(async (tx) => {
      const channel = await tx.channels.get(threadId, true);
      if (!channel?.thread_metadata || !channel.parent_id) return 10003;
      const metadata = channel.thread_metadata;
      if (!metadata.archived) return 0;
      if (metadata.locked) return 50083;
      const row = await tx.channels.update(channel.id, {
        thread_metadata: { ...metadata, archived: false, archive_timestamp: new Date().toISOString() },
      });
      await emitChannelEvent(tx, 'THREAD_UPDATE', row, [await tx.channels.overwrites(channel.parent_id)]);
      return 0;
    });
  }

  /** PATCH of a thread: MANAGE_THREADS, or its owner for everything but `locked` (and not to reopen a locked thread). */
  async modify(tx: GuildsTx, access: ChannelAccess, input: ModifyChannelInput, userId: string): Promise<Record<string, unknown>> {
    const { channel } = access;
    const metadata = channel.thread_metadata!;
    const moderator = hasAll(access.permissions, Permission.MANAGE_THREADS);
    if (!moderator) {
      const ownerMayDo = channel.owner_id === userId && input.locked === undefined && !(metadata.locked && input.archived === false);
      if (!ownerMayDo) throw ApiError.of('MISSING_PERMISSIONS');
    }
    const next: ThreadMetadata = { ...metadata };
    if (input.archived !== undefined && input.archived !== metadata.archived) {
      next.archived = input.archived;
      next.archive_timestamp = new Date().toISOString();
    }
    if (input.locked !== undefined) next.locked = input.locked;
    if (input.auto_archive_duration !== undefined) next.auto_archive_duration = input.auto_archive_duration;
    const patch: ChannelPatch = { thread_metadata: next };
    if (input.name !== undefined) patch.name = input.name.trim();
    if (input.rate_limit_per_user != null) patch.rate_limit_per_user = input.rate_limit_per_user;
    const row = await tx.channels.update(channel.id, patch);
    await emitChannelEvent(tx, 'THREAD_UPDATE', row, [await tx.channels.overwrites(channel.parent_id!)]);
    return renderChannel(row);
  }

  /** Deleting a thread takes MANAGE_THREADS. */
  async delete(tx: GuildsTx, access: ChannelAccess): Promise<Record<string, unknown>> {
    if (!hasAll(access.permissions, Permission.MANAGE_THREADS)) throw ApiError.of('MISSING_PERMISSIONS');
    const { channel } = access;
    const data = { id: channel.id, guild_id: channel.guild_id, parent_id: channel.parent_id, type: channel.type };
    await emitChannelEvent(tx, 'THREAD_DELETE', channel, [await tx.channels.overwrites(channel.parent_id!)], data);
    await tx.channels.delete(channel);
    return renderChannel(channel);
  }

  /** The guild's unarchived threads in channels the caller sees. */
  async active(userId: string, guildId: string): Promise<{ threads: unknown[]; members: unknown[] }> {
    const guild = await this.channels.memberAccess(guildId, userId);
    const threads = await this.store.channels.activeThreads(guildId);
    const inParent = new Map<string, bigint>();
    const visible = [];
    for (const thread of threads) {
      const parentId = thread.parent_id!;
      if (!inParent.has(parentId)) inParent.set(parentId, channelPermissions(guild.ctx, await this.store.channels.overwrites(parentId)));
      const permissions = inParent.get(parentId)!;
      if (permissions & Permission.VIEW_CHANNEL && seesThread(thread, userId, permissions)) visible.push(renderChannel(thread));
    }
    return { threads: visible, members: [] };
  }

  /** A channel's archived public threads, newest archive first, before a time; READ_MESSAGE_HISTORY. */
  async archivedPublic(userId: string, channelId: string, before: string | undefined, limit = 50) {
    const parent = await this.channels.visible(channelId, userId);
    if (parent.channel.guild_id === null) throw guildErrors.wrongChannelType();
    if (!hasAll(parent.permissions, Permission.READ_MESSAGE_HISTORY)) throw ApiError.of('MISSING_PERMISSIONS');
    const rows = await this.store.channels.archivedPublicThreads(channelId, before ?? new Date().toISOString(), limit + 1);
    return { threads: rows.slice(0, limit).map((r) => renderChannel(r)), members: [], has_more: rows.length > limit };
  }
}
