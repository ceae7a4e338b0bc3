import { createHash } from 'node:crypto';
import { ApiError, type DomainEvent, type SnowflakeGenerator } from '@kith/platform';
import { safeFilename, type UploadedFile } from './attachments.service.js';
import { allowedMentionsConflict, parseMentions } from './mentions.js';
import {
  checkEmbedTotal,
  renderEmbed,
  type AllowedMentions,
  type AttachmentRef,
  type EditInput,
  type ExecuteInput,
  type PollInput,
} from './message.input.js';
import type { AttachmentView, MessageRecord } from './message.types.js';
import { renderMessage } from './message.view.js';
import type { GuildDirectory, MessageStore, UserDirectory } from './ports.js';
import { checkName } from './webhooks.service.js';
import { THREAD_ONLY_TYPES, THREAD_TYPES, WebhookType, type ChannelInfo, type WebhookRecord } from './webhook.types.js';

export interface MessagesDeps {
  store: MessageStore;
  guilds: GuildDirectory;
  users: UserDirectory;
  ids: SnowflakeGenerator;
  /**
   * The webhook as it is now, read afresh: asked when the row an execution was prepared with (a
   * remembered one, say) changed or went before the message was saved.
   */
  reload?: (webhookId: string) => Promise<WebhookRecord | undefined>;
}

export interface ExecuteOptions {
  threadId?: string | undefined;
  withComponents?: boolean;
  /** Files uploaded with the request, already stored. */
  files?: UploadedFile[];
  /** A post in another service's format (Execute Service Webhook): not into a forum or media channel itself. */
  service?: boolean;
}

/** A message ready to be saved: the checks are done, `commit` writes it and its event. */
export interface PreparedMessage {
  record: MessageRecord;
  commit(): Promise<Record<string, unknown>>;
}

const MAX_FILES = 10;
/** Executions prepared again after the webhook changed under them, before one is given up. */
const MAX_RETRIES = 3;

/** Posting through a webhook, and the webhook's messages afterwards. */
export class MessagesService {
  constructor(private readonly deps: MessagesDeps) {}

  /**
   * Checks an execution completely (token, channel, thread, body) and builds the message; nothing
   * is written until `commit`, so a caller that does not wait can answer first.
   */
  async prepare(webhook: WebhookRecord, input: ExecuteInput, opts: ExecuteOptions = {}, retries = MAX_RETRIES): Promise<PreparedMessage> {
    const files = opts.files ?? [];
    if (input.username != null) checkName(input.username, 'username');
    checkEmbedTotal(input.embeds);
    this.checkMentions(input.allowed_mentions);
    const components = this.components(webhook, input.components, opts.withComponents ?? false);
    const attachments = describeFiles(files, input.attachments);
    const empty = !input.content && !input.embeds?.length && attachments.length === 0 && !input.poll && components.length === 0;
    if (empty) throw ApiError.of('EMPTY_MESSAGE');
    const target = await this.target(webhook, input, opts.threadId, opts.service ?? false);
    const content = input.content ?? '';
    const mentions = await this.mentions(webhook.guildId, content, input.allowed_mentions);
    const now = new Date();
    const record: MessageRecord = {
      id: this.deps.ids.next(now.getTime()),
      webhookId: webhook.id,
      guildId: webhook.guildId,
      channelId: target.channelId,
      parentChannelId: webhook.channelId,
      applicationId: webhook.applicationId,
      authorName: input.username ?? webhook.name,
      authorAvatar: input.avatar_url ? createHash('md5').update(input.avatar_url).digest('hex') : webhook.avatar,
      avatarUrl: input.avatar_url ?? null,
      content,
      tts: input.tts ?? false,
      flags: input.flags ?? 0,
      embeds: (input.embeds ?? []).map(renderEmbed),
      attachments,
      components,
      ...mentions,
      poll: input.poll ? renderPoll(input.poll, now) : null,
      createdAt: now,
      editedAt: null,
    };
    return {
      record,
      commit: async () => {
        if (target.create) await target.create(record);
        else if (target.unarchive) await target.unarchive();
        const view = renderMessage(record);
        if (await this.deps.store.insert(record, [await this.event('MESSAGE_CREATE', record, view)], webhook)) return view;
        // The webhook is not as it was read: prepared again with it as it is (or refused).
        const current = await this.deps.reload?.(webhook.id);
        if (!current) throw ApiError.of('UNKNOWN_WEBHOOK');
        if (!current.tokenDigest.equals(webhook.tokenDigest)) throw ApiError.of('INVALID_WEBHOOK_TOKEN');
        if (retries <= 0) throw new Error(`webhook ${webhook.id} kept changing while a message was saved`);
        return (await this.prepare(current, input, opts, retries - 1)).commit();
      },
    };
  }

  async get(webhook: WebhookRecord, messageId: string, threadId?: string): Promise<Record<string, unknown>> {
    const message = await this.owned(webhook, messageId, threadId);
    return renderMessage(message);
  }

  async edit(webhook: WebhookRecord, messageId: string, input: EditInput, opts: ExecuteOptions = {}): Promise<Record<string, unknown>> {
    const message = await this.owned(webhook, messageId, opts.threadId);
    checkEmbedTotal(input.embeds);
    this.checkMentions(input.allowed_mentions);
    const updated: MessageRecord = { ...message, editedAt: new Date() };
    if (input.content !== undefined) {
      updated.content = input.content ?? '';
      Object.assign(updated, await this.mentions(message.guildId, updated.content, input.allowed_mentions));
    }
    if (input.embeds !== undefined) updated.embeds = (input.embeds ?? []).map(renderEmbed);
    if (input.flags != null) updated.flags = input.flags;
    if (input.components !== undefined) updated.components = this.components(webhook, input.components, opts.withComponents ?? false);
    const files = opts.files ?? [];
    if (input.attachments !== undefined || files.length > 0) {
      // `attachments` lists what stays (by id); new files are added after them.
      const keep = input.attachments === undefined ? message.attachments : keepAttachments(message.attachments, input.attachments ?? []);
      const added = describeFiles(files, input.attachments);
      if (keep.length + added.length > MAX_FILES)
        throw ApiError.form({ attachments: { code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${MAX_FILES} or fewer in length.` } });
      updated.attachments = [...keep, ...added];
    }
    const empty =
      !updated.content &&
      updated.embeds.length === 0 &&
      updated.attachments.length === 0 &&
      !updated.poll &&
      updated.components.length === 0;
    if (empty) throw ApiError.of('EMPTY_MESSAGE');
    const view = renderMessage(updated);
    const kept = new Set(updated.attachments.map((a) => a.id));
    const dropped = message.attachments.filter((a) => !kept.has(a.id));
    await this.deps.store.update(updated, [await this.event('MESSAGE_UPDATE', updated, view)], dropped);
    return view;
  }

  async delete(webhook: WebhookRecord, messageId: string, threadId?: string): Promise<void> {
    const message = await this.owned(webhook, messageId, threadId);
    const event = await this.event('MESSAGE_DELETE', message, { id: message.id, channel_id: message.channelId });
    const gone = await this.deps.store.delete(webhook.id, message.id, () => [event]);
    if (!gone) throw ApiError.of('UNKNOWN_MESSAGE');
  }

  /** A message this webhook posted (in the thread named, when one is): 10008 otherwise. */
  private async owned(webhook: WebhookRecord, messageId: string, threadId?: string): Promise<MessageRecord> {
    const message = await this.deps.store.get(webhook.id, messageId);
    if (!message) throw ApiError.of('UNKNOWN_MESSAGE');
    if (threadId !== undefined && message.channelId !== threadId) throw ApiError.of('UNKNOWN_MESSAGE');
    return message;
  }

  /** Where the message goes: the webhook's channel, a thread of it (unarchived), or a new forum post. */
  private async target(
    webhook: WebhookRecord,
    input: ExecuteInput,
    threadId: string | undefined,
    service: boolean,
  ): Promise<{ channelId: string; unarchive?: () => Promise<void>; create?: (m: MessageRecord) => Promise<void> }> {
    const channel = await this.deps.guilds.channel(webhook.channelId);
    if (!channel) throw ApiError.of('UNKNOWN_CHANNEL');
    const threadOnly = THREAD_ONLY_TYPES.has(channel.type);
    if (service && threadOnly && threadId === undefined) throw ApiError.of('SERVICE_IN_FORUM');
    if (threadId !== undefined) {
      if (input.thread_name != null) throw ApiError.of('FORUM_THREAD_CONFLICT');
      const thread = await this.deps.guilds.channel(threadId);
      if (!thread || !THREAD_TYPES.has(thread.type) || thread.parentId !== channel.id) throw ApiError.of('UNKNOWN_CHANNEL');
      if (thread.archived && thread.locked) throw ApiError.of('THREAD_ARCHIVED');
      return thread.archived
        ? { channelId: thread.id, unarchive: () => this.deps.guilds.unarchiveThread(thread.id) }
        : { channelId: thread.id };
    }
    if (input.thread_name != null) {
      if (!threadOnly) throw ApiError.of('THREAD_NAME_OUTSIDE_FORUM');
      const tags = checkTags(channel, input.applied_tags ?? []);
      // A forum post is a thread whose id is its first message's.
      return {
        channelId: '',
        create: async (m) => {
          m.channelId = m.id;
          await this.deps.guilds.createForumThread({
            channelId: channel.id,
            threadId: m.id,
            name: input.thread_name!,
            appliedTags: tags,
            ownerId: webhook.id,
          });
        },
      };
    }
    if (threadOnly) throw ApiError.of('FORUM_THREAD_REQUIRED');
    return { channelId: channel.id };
  }

  private checkMentions(allowed: AllowedMentions | null | undefined): void {
    const conflict = allowedMentionsConflict(allowed);
    if (conflict)
      throw ApiError.form({
        allowed_mentions: {
          code: 'MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE',
          message: `parse:["${conflict}"] and ${conflict}: [ids...] are mutually exclusive.`,
        },
      });
  }

  /**
   * Components need `with_components`; without it they are ignored. An incoming webhook may send
   * only what needs no interaction (link buttons and layout), an application's anything.
   */
  private components(webhook: WebhookRecord, components: unknown[] | null | undefined, withComponents: boolean): unknown[] {
    if (!components?.length || !withComponents) return [];
    if (webhook.type !== WebhookType.APPLICATION && components.some(isInteractive))
      throw ApiError.form({
        components: { code: 'COMPONENT_INTERACTIVE_NOT_ALLOWED', message: 'Interactive components need an application-owned webhook.' },
      });
    return components;
  }

  private async mentions(guildId: string, content: string, allowed: AllowedMentions | null | undefined) {
    const parsed = parseMentions(content, allowed);
    const users = parsed.userIds.length > 0 ? await this.deps.users.users(parsed.userIds) : new Map<string, unknown>();
    const roles = parsed.roleIds.length > 0 ? await this.deps.guilds.roleIds(guildId) : new Set<string>();
    return {
      mentions: parsed.userIds.flatMap((id) => (users.has(id) ? [users.get(id)] : [])),
      mentionRoles: parsed.roleIds.filter((id) => roles.has(id)),
      mentionEveryone: parsed.everyone,
    };
  }

  /**
   * A message event to the users who can view the channel it is in. A thread's audience is the
   * thread's own (guilds decides it): a private thread's is its members and moderators
   * (MANAGE_THREADS), never everyone who sees the parent.
   */
  private async event(name: string, m: MessageRecord, payload: Record<string, unknown>): Promise<DomainEvent> {
    return { name, audience: { users: await this.deps.guilds.viewerIds(m.channelId) }, data: { ...payload, guild_id: m.guildId } };
  }
}

/** Interactive components: buttons other than links, selects, text inputs (nested in rows or containers). */
function isInteractive(component: unknown): boolean {
  if (component === null || typeof component !== 'object') return false;
  const c = component as { type?: number; style?: number; components?: unknown[]; accessory?: unknown };
  if (c.type === 2) return c.style !== 5 && c.style !== 6;
  if (c.type !== undefined && [3, 4, 5, 6, 7, 8].includes(c.type)) return true;
  return (c.components ?? []).some(isInteractive) || (c.accessory !== undefined && isInteractive(c.accessory));
}

function checkTags(channel: ChannelInfo, tags: string[]): string[] {
  const known = new Set(channel.tagIds);
  tags.forEach((tag, i) => {
    if (!known.has(tag)) throw ApiError.form({ [`applied_tags.${i}`]: { code: 'BASE_TYPE_CHOICES', message: 'Unknown tag.' } });
  });
  return [...new Set(tags)];
}

/** The uploaded files with the filename and description `attachments` gives each (by the `n` of `files[n]`). */
function describeFiles(files: UploadedFile[], refs: AttachmentRef[] | null | undefined): AttachmentView[] {
  if (files.length > MAX_FILES)
    throw ApiError.form({ files: { code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${MAX_FILES} or fewer in length.` } });
  return files.map((file) => {
    const ref = refs?.find((r) => r.id === file.index);
    const out: AttachmentView = { ...file.attachment };
    if (ref?.filename) out.filename = safeFilename(ref.filename);
    if (ref?.description) out.description = ref.description;
    return out;
  });
}

function keepAttachments(current: AttachmentView[], refs: AttachmentRef[]): AttachmentView[] {
  const kept = new Map(refs.map((r) => [r.id, r]));
  return current.filter((a) => kept.has(a.id));
}

function renderPoll(poll: PollInput, now: Date): Record<string, unknown> {
  const hours = poll.duration ?? 24;
  return {
    question: { text: poll.question.text },
    answers: poll.answers.map((a, i) => ({ answer_id: i + 1, poll_media: a.poll_media })),
    expiry: new Date(now.getTime() + hours * 3_600_000).toISOString().replace('Z', '+00:00'),
    allow_multiselect: poll.allow_multiselect ?? false,
    layout_type: 1,
    results: { answer_counts: [], is_finalized: false },
  };
}
