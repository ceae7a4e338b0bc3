import { SnowflakeGenerator, type DomainEvent } from '@kith/platform';
import type { GuildDirectory, MessageStore, UserDirectory, WebhookChanges, WebhookLimits, WebhookStore } from '../../src/domain/ports.js';
import type { AttachmentView, MessageRecord } from '../../src/domain/message.types.js';
import { AesTokenVault } from '../../src/domain/webhook.token.js';
import { Permission, type ChannelInfo, type WebhookRecord } from '../../src/domain/webhook.types.js';

/** In-memory stand-ins for the domain's ports, for unit tests of the domain alone. */
export class MemoryWebhooks implements WebhookStore {
  readonly rows = new Map<string, WebhookRecord>();
  readonly events: DomainEvent[] = [];
  readonly avatars = new Map<string, Buffer>();

  async byId(id: string) {
    return this.rows.get(id);
  }
  async byChannel(channelId: string) {
    return [...this.rows.values()].filter((w) => w.channelId === channelId);
  }
  async byGuild(guildId: string) {
    return [...this.rows.values()].filter((w) => w.guildId === guildId);
  }
  async create(w: WebhookRecord, limits: WebhookLimits, events: DomainEvent[]) {
    if ((await this.byChannel(w.channelId)).length >= limits.perChannel) return 'channel_full' as const;
    if ((await this.byGuild(w.guildId)).length >= limits.perGuild) return 'guild_full' as const;
    this.rows.set(w.id, w);
    this.events.push(...events);
    return 'created' as const;
  }
  async update(id: string, changes: WebhookChanges, limits: WebhookLimits, events: (w: WebhookRecord) => DomainEvent[]) {
    const row = this.rows.get(id);
    if (!row) return 'gone' as const;
    if (changes.channelId && (await this.byChannel(changes.channelId)).length >= limits.perChannel) return 'channel_full' as const;
    const updated = { ...row, ...changes } as WebhookRecord;
    this.rows.set(id, updated);
    this.events.push(...events(updated));
    return updated;
  }
  async delete(id: string, events: (w: WebhookRecord) => DomainEvent[]) {
    const row = this.rows.get(id);
    if (!row) return undefined;
    this.rows.delete(id);
    this.events.push(...events(row));
    return row;
  }
  async deleteByChannel(channelId: string) {
    const gone = await this.byChannel(channelId);
    for (const w of gone) this.rows.delete(w.id);
    return gone.length;
  }
  async deleteByGuild(guildId: string) {
    const gone = await this.byGuild(guildId);
    for (const w of gone) this.rows.delete(w.id);
    return gone.length;
  }
  async deleteByApplication(guildId: string, applicationId: string, events: (channelIds: string[]) => Promise<DomainEvent[]>) {
    const gone = [...this.rows.values()].filter((w) => w.guildId === guildId && w.applicationId === applicationId);
    for (const w of gone) this.rows.delete(w.id);
    if (gone.length) this.events.push(...(await events([...new Set(gone.map((w) => w.channelId))])));
    return gone.length;
  }
  async saveAvatar(hash: string, _type: string, data: Buffer) {
    this.avatars.set(hash, data);
  }
}

export class MemoryMessages implements MessageStore {
  readonly rows = new Map<string, MessageRecord>();
  readonly events: DomainEvent[] = [];
  async insert(m: MessageRecord, events: DomainEvent[], _webhook: WebhookRecord) {
    this.rows.set(m.id, structuredClone(m));
    this.events.push(...events);
    return true;
  }
  async get(webhookId: string, id: string) {
    const m = this.rows.get(id);
    return m && m.webhookId === webhookId ? structuredClone(m) : undefined;
  }
  readonly dropped: AttachmentView[] = [];
  async update(m: MessageRecord, events: DomainEvent[], dropped: AttachmentView[]) {
    this.dropped.push(...dropped);
    this.rows.set(m.id, structuredClone(m));
    this.events.push(...events);
  }
  async delete(webhookId: string, id: string, events: (m: MessageRecord) => DomainEvent[]) {
    const m = await this.get(webhookId, id);
    if (!m) return undefined;
    this.rows.delete(id);
    this.events.push(...events(m));
    return m;
  }
}

/** Guilds as a table: channels, each user's permissions, who sees what. */
export class FakeGuilds implements GuildDirectory {
  readonly channels = new Map<string, ChannelInfo>();
  /** `${userId}:${guildId}` → permissions everywhere in the guild. */
  readonly perms = new Map<string, bigint>();
  readonly viewers = new Map<string, string[]>();
  readonly roles = new Map<string, Set<string>>();
  readonly guilds = new Map<string, { id: string; name: string; icon: string | null }>();
  readonly unarchived: string[] = [];
  readonly started: { channelId: string; threadId: string; name: string; appliedTags: string[] }[] = [];

  addChannel(c: Partial<ChannelInfo> & { id: string; guildId: string }): ChannelInfo {
    const channel = { type: 0, parentId: '', name: 'c', archived: false, locked: false, tagIds: [], ...c };
    this.channels.set(c.id, channel);
    return channel;
  }
  grant(userId: string, guildId: string, permissions: bigint = Permission.VIEW_CHANNEL | Permission.MANAGE_WEBHOOKS) {
    this.perms.set(`${userId}:${guildId}`, permissions);
  }
  async channel(id: string) {
    return this.channels.get(id);
  }
  async permissions(userId: string, guildId: string) {
    return this.perms.get(`${userId}:${guildId}`);
  }
  async viewerIds(channelId: string) {
    return this.viewers.get(channelId) ?? [];
  }
  async guild(guildId: string) {
    return this.guilds.get(guildId);
  }
  async roleIds(guildId: string) {
    return this.roles.get(guildId) ?? new Set<string>();
  }
  async unarchiveThread(threadId: string) {
    this.unarchived.push(threadId);
  }
  async createForumThread(t: { channelId: string; threadId: string; name: string; appliedTags: string[] }) {
    this.started.push(t);
  }
}

export class FakeUsers implements UserDirectory {
  readonly known = new Map<string, unknown>();
  async users(ids: string[]) {
    return new Map(ids.filter((id) => this.known.has(id)).map((id) => [id, this.known.get(id)]));
  }
}

export const vault = new AesTokenVault(Buffer.alloc(32, 7).toString('base64'));
export const ids = new SnowflakeGenerator();
