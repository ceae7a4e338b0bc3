import { createHash } from 'node:crypto';
import { ApiError, type DomainEvent, type SnowflakeGenerator } from '@kith/platform';
import type { GuildDirectory, TokenVault, UserDirectory, WebhookChanges, WebhookLimits, WebhookStore } from './ports.js';
import { newWebhookToken, tokenDigest, tokenMatches } from './webhook.token.js';
import {
  ChannelType,
  FOLLOW_TARGET_TYPES,
  Permission,
  WEBHOOK_CHANNEL_TYPES,
  WebhookType,
  type ChannelInfo,
  type WebhookRecord,
} from './webhook.types.js';
import { renderWebhook, type WebhookView } from './webhook.view.js';

export const LIMITS: WebhookLimits = { perChannel: 15, perGuild: 1000 };

/** Substrings no webhook name may hold, in any case (the platform's reserved words). */
const RESERVED_WORDS = ['clyde', 'discord'];

export interface WebhooksDeps {
  store: WebhookStore;
  guilds: GuildDirectory;
  users: UserDirectory;
  vault: TokenVault;
  ids: SnowflakeGenerator;
  /** The API base of a webhook's `url`. */
  apiUrl: string;
  limits?: WebhookLimits;
}

export interface WebhookInput {
  name: string;
  /** A data URI (validated by the route), or null. */
  avatar?: string | null;
}

/** An application's webhook, made when a user authorizes it with `webhook.incoming`. */
export interface ApplicationWebhookInput {
  userId: string;
  channelId: string;
  /** The guild the user chose; undefined: the channel's. */
  guildId?: string | undefined;
  applicationId: string;
  name: string;
  avatar: string | null;
  applicationUserId: string | null;
}

export interface WebhookPatch {
  name?: string;
  avatar?: string | null;
  channelId?: string;
}

/** Refuses a name holding a reserved word, as the platform does (a form error on `name`). */
export function checkName(name: string, field = 'name'): void {
  const lower = name.toLowerCase();
  const word = RESERVED_WORDS.find((w) => lower.includes(w));
  if (word) throw ApiError.form({ [field]: { code: 'USERNAME_INVALID_CONTAINS', message: `Username cannot contain "${word}"` } });
}

/** A data URI → its hash, content type and bytes. */
export function decodeAvatar(dataUri: string): { hash: string; contentType: string; data: Buffer } {
  const comma = dataUri.indexOf(',');
  const contentType = dataUri.slice(5, dataUri.indexOf(';'));
  const data = Buffer.from(dataUri.slice(comma + 1), 'base64');
  if (data.length === 0) throw ApiError.form({ avatar: { code: 'IMAGE_INVALID', message: 'Invalid image data' } });
  return { hash: createHash('md5').update(data).digest('hex'), contentType, data };
}

/** How many webhooks `forExecution` remembers (all are forgotten when it is full). */
const RECENT_WEBHOOKS = 10_000;

function checkToken(webhook: WebhookRecord | undefined, token: string): WebhookRecord {
  if (!webhook) throw ApiError.of('UNKNOWN_WEBHOOK');
  if (!tokenMatches(token, webhook.tokenDigest)) throw ApiError.of('INVALID_WEBHOOK_TOKEN');
  return webhook;
}

/** Create, list, read, change and delete webhooks: by id for users who may manage them, or with the token. */
export class WebhooksService {
  private readonly limits: WebhookLimits;
  /** Webhooks executions read, by id: forgotten on this process's own changes, checked on every insert. */
  private readonly recent = new Map<string, WebhookRecord>();

  constructor(private readonly deps: WebhooksDeps) {
    this.limits = deps.limits ?? LIMITS;
  }

  async create(userId: string, channelId: string, input: WebhookInput): Promise<WebhookView> {
    const channel = await this.manageableChannel(userId, channelId);
    checkName(input.name);
    const avatar = await this.storeAvatar(input.avatar);
    const record = this.newRecord({
      type: WebhookType.INCOMING,
      guildId: channel.guildId,
      channelId: channel.id,
      userId,
      name: input.name,
      avatar: avatar ?? null,
    });
    await this.insert(record, channel);
    return this.render(record, true, userId);
  }

  /** A new webhook's record: a fresh id and token (kept only digested and sealed), no owner or source unless given. */
  private newRecord(
    fields: Pick<WebhookRecord, 'type' | 'guildId' | 'channelId' | 'userId' | 'name' | 'avatar'> &
      Partial<Pick<WebhookRecord, 'applicationId' | 'applicationUserId' | 'sourceGuild' | 'sourceChannel'>>,
  ): WebhookRecord {
    const token = newWebhookToken();
    return {
      applicationId: null,
      sourceGuild: null,
      sourceChannel: null,
      ...fields,
      id: this.deps.ids.next(),
      tokenDigest: tokenDigest(token),
      tokenSealed: this.deps.vault.seal(token),
    };
  }

  /** Saves a new webhook with WEBHOOKS_UPDATE for its channel, within the channel's and guild's limits. */
  private async insert(record: WebhookRecord, channel: ChannelInfo): Promise<void> {
    const outcome = await this.deps.store.create(record, this.limits, await this.updateEvents(channel.guildId, [channel.id]));
    if (outcome === 'channel_full') throw ApiError.of('MAX_WEBHOOKS');
    if (outcome === 'guild_full') throw ApiError.of('MAX_GUILD_WEBHOOKS');
  }

  /**
   * Follow Channel: the source announcement channel's posts reach the target channel through a
   * CHANNEL_FOLLOWER webhook there, named and pictured as the source guild. The caller must see the
   * source (10003) and manage webhooks in the target (50013); following again is the same follow.
   */
  async follow(userId: string, sourceId: string, targetId: string): Promise<{ channel_id: string; webhook_id: string }> {
    const source = await this.deps.guilds.channel(sourceId);
    if (!source || !source.guildId) throw ApiError.of('UNKNOWN_CHANNEL');
    const seen = await this.deps.guilds.permissions(userId, source.guildId, source.id);
    if (seen === undefined || !(seen & Permission.VIEW_CHANNEL)) throw ApiError.of('UNKNOWN_CHANNEL');
    if (source.type !== ChannelType.GUILD_ANNOUNCEMENT) throw ApiError.of('INVALID_CHANNEL_TYPE');
    const target = await this.manageableChannel(userId, targetId, FOLLOW_TARGET_TYPES);
    const existing = (await this.deps.store.byChannel(target.id)).find(
      (w) => w.type === WebhookType.CHANNEL_FOLLOWER && (w.sourceChannel as { id?: string } | null)?.id === source.id,
    );
    if (existing) return { channel_id: source.id, webhook_id: existing.id };
    const guild = await this.deps.guilds.guild(source.guildId);
    if (!guild) throw ApiError.of('UNKNOWN_CHANNEL');
    // No one is shown or given its token: posts come through it from the source, not from outside.
    const record = this.newRecord({
      type: WebhookType.CHANNEL_FOLLOWER,
      guildId: target.guildId,
      channelId: target.id,
      userId,
      name: [...guild.name].slice(0, 80).join(''),
      avatar: guild.icon,
      sourceGuild: { id: guild.id, name: guild.name, icon: guild.icon },
      sourceChannel: { id: source.id, name: source.name },
    });
    await this.insert(record, target);
    return { channel_id: source.id, webhook_id: record.id };
  }

  /**
   * An APPLICATION webhook in the channel the authorizing user chose (they must manage webhooks
   * there), answered with its token for the application alone.
   */
  async createForApplication(input: ApplicationWebhookInput): Promise<WebhookView> {
    const channel = await this.manageableChannel(input.userId, input.channelId);
    if (input.guildId !== undefined && input.guildId !== channel.guildId) throw ApiError.of('UNKNOWN_CHANNEL');
    const record = this.newRecord({
      type: WebhookType.APPLICATION,
      guildId: channel.guildId,
      channelId: channel.id,
      userId: input.userId,
      name: [...input.name].slice(0, 80).join('') || 'Application',
      avatar: input.avatar,
      applicationId: input.applicationId,
      applicationUserId: input.applicationUserId,
    });
    await this.insert(record, channel);
    return renderWebhook(record, { vault: this.deps.vault, apiUrl: this.deps.apiUrl, showToken: true });
  }

  async listChannel(userId: string, channelId: string): Promise<WebhookView[]> {
    await this.manageableChannel(userId, channelId);
    return this.renderAll(await this.deps.store.byChannel(channelId), userId);
  }

  async listGuild(userId: string, guildId: string): Promise<WebhookView[]> {
    const permissions = await this.deps.guilds.permissions(userId, guildId, '');
    if (permissions === undefined) throw ApiError.of('UNKNOWN_GUILD');
    if (!(permissions & Permission.MANAGE_WEBHOOKS)) throw ApiError.of('MISSING_PERMISSIONS');
    return this.renderAll(await this.deps.store.byGuild(guildId), userId);
  }

  async get(userId: string, id: string): Promise<WebhookView> {
    // An application reads its own webhook, token and all, whatever its permissions in the guild.
    const webhook = await this.deps.store.byId(id);
    if (webhook && isApplicationsOwn(webhook, userId)) return this.render(webhook, true, userId);
    return this.render(await this.mayManage(userId, webhook), true, userId);
  }

  async modify(userId: string, id: string, patch: WebhookPatch): Promise<WebhookView> {
    const webhook = await this.managed(userId, id);
    if (patch.channelId !== undefined && patch.channelId !== webhook.channelId) {
      const target = await this.manageableChannel(userId, patch.channelId);
      // A webhook moves within its guild only.
      if (target.guildId !== webhook.guildId)
        throw ApiError.form({ channel_id: { code: 'BASE_TYPE_INVALID', message: 'Invalid channel.' } });
    }
    return this.render(await this.apply(webhook, patch), true, userId);
  }

  async delete(userId: string, id: string): Promise<void> {
    const webhook = await this.managed(userId, id);
    await this.remove(webhook);
  }

  /** The webhook as its token's holder sees it (`withToken` found it): no `user`. */
  getWithToken(webhook: WebhookRecord): Promise<WebhookView> {
    return this.render(webhook, false);
  }

  async modifyWithToken(webhook: WebhookRecord, patch: WebhookPatch): Promise<WebhookView> {
    if (patch.channelId !== undefined)
      throw ApiError.form({ channel_id: { code: 'BASE_TYPE_INVALID', message: 'A webhook cannot be moved with its token.' } });
    return this.render(await this.apply(webhook, patch), false);
  }

  deleteWithToken(webhook: WebhookRecord): Promise<void> {
    return this.remove(webhook);
  }

  /** The webhook whose token this is: 10015 when there is none, 50027 when the token is not its. */
  async withToken(id: string, token: string): Promise<WebhookRecord> {
    return checkToken(await this.reload(id), token);
  }

  /**
   * `withToken` for an execution: the webhook as this process last read it, when it has. The
   * message's insert holds only while the row is still exactly that (`MessageStore.insert`), and
   * the execution reads it afresh (`reload`) when not, so a remembered webhook that was changed
   * or deleted elsewhere posts nothing.
   */
  async forExecution(id: string, token: string): Promise<WebhookRecord> {
    return checkToken(this.recent.get(id) ?? (await this.reload(id)), token);
  }

  /** The webhook read afresh (and remembered for executions). */
  async reload(id: string): Promise<WebhookRecord | undefined> {
    const webhook = await this.deps.store.byId(id);
    if (!webhook) {
      this.recent.delete(id);
      return undefined;
    }
    if (this.recent.size >= RECENT_WEBHOOKS) this.recent.clear();
    this.recent.set(id, webhook);
    return webhook;
  }

  /** Guilds deleted a channel or a guild: its webhooks (and their messages) go with it. */
  channelDeleted(channelId: string): Promise<number> {
    this.forget((w) => w.channelId === channelId);
    return this.deps.store.deleteByChannel(channelId);
  }

  guildDeleted(guildId: string): Promise<number> {
    this.forget((w) => w.guildId === guildId);
    return this.deps.store.deleteByGuild(guildId);
  }

  /** Integrations removed an application from a guild: its webhooks there go, with WEBHOOKS_UPDATE. */
  applicationRemoved(guildId: string, applicationId: string): Promise<number> {
    this.forget((w) => w.guildId === guildId && w.applicationId === applicationId);
    return this.deps.store.deleteByApplication(guildId, applicationId, (channelIds) => this.updateEvents(guildId, channelIds));
  }

  /** Forgets the remembered webhooks a change here touches (the inserts' check would catch them, at the cost of a retry). */
  private forget(touched: (w: WebhookRecord) => boolean): void {
    for (const [id, w] of this.recent) if (touched(w)) this.recent.delete(id);
  }

  private async apply(webhook: WebhookRecord, patch: WebhookPatch): Promise<WebhookRecord> {
    const changes: WebhookChanges = {};
    if (patch.name !== undefined) {
      checkName(patch.name);
      changes.name = patch.name;
    }
    if (patch.avatar !== undefined) changes.avatar = (await this.storeAvatar(patch.avatar)) ?? null;
    if (patch.channelId !== undefined && patch.channelId !== webhook.channelId) changes.channelId = patch.channelId;
    const channels = [webhook.channelId, ...(changes.channelId ? [changes.channelId] : [])];
    const events = await this.updateEvents(webhook.guildId, channels);
    this.recent.delete(webhook.id);
    const updated = await this.deps.store.update(webhook.id, changes, this.limits, () => events);
    if (updated === 'gone') throw ApiError.of('UNKNOWN_WEBHOOK');
    if (updated === 'channel_full') throw ApiError.of('MAX_WEBHOOKS');
    return updated;
  }

  private async remove(webhook: WebhookRecord): Promise<void> {
    const events = await this.updateEvents(webhook.guildId, [webhook.channelId]);
    this.recent.delete(webhook.id);
    const gone = await this.deps.store.delete(webhook.id, () => events);
    if (!gone) throw ApiError.of('UNKNOWN_WEBHOOK');
  }

  /** WEBHOOKS_UPDATE for each channel whose webhooks changed, to the users who see it. */
  private async updateEvents(guildId: string, channelIds: string[]): Promise<DomainEvent[]> {
    return Promise.all(
      channelIds.map(async (channelId) => ({
        name: 'WEBHOOKS_UPDATE',
        audience: { users: await this.deps.guilds.viewerIds(channelId) },
        data: { guild_id: guildId, channel_id: channelId },
      })),
    );
  }

  /** A channel the user may manage webhooks in: 10003 unknown (or not theirs to see), 50013 without MANAGE_WEBHOOKS. */
  private async manageableChannel(userId: string, channelId: string, types = WEBHOOK_CHANNEL_TYPES): Promise<ChannelInfo> {
    const channel = await this.deps.guilds.channel(channelId);
    if (!channel || !channel.guildId) throw ApiError.of('UNKNOWN_CHANNEL');
    const permissions = await this.deps.guilds.permissions(userId, channel.guildId, channel.id);
    if (permissions === undefined || !(permissions & Permission.VIEW_CHANNEL)) throw ApiError.of('UNKNOWN_CHANNEL');
    if (!(permissions & Permission.MANAGE_WEBHOOKS)) throw ApiError.of('MISSING_PERMISSIONS');
    if (!types.has(channel.type)) throw ApiError.of('INVALID_CHANNEL_TYPE');
    return channel;
  }

  /** A webhook the user may manage: 10015 when unknown or in a guild they are not in, 50013 without MANAGE_WEBHOOKS. */
  private async managed(userId: string, id: string): Promise<WebhookRecord> {
    return this.mayManage(userId, await this.deps.store.byId(id));
  }

  /** `managed` for a webhook already read (or not found). */
  private async mayManage(userId: string, webhook: WebhookRecord | undefined): Promise<WebhookRecord> {
    if (!webhook) throw ApiError.of('UNKNOWN_WEBHOOK');
    const permissions = await this.deps.guilds.permissions(userId, webhook.guildId, webhook.channelId);
    if (permissions === undefined) throw ApiError.of('UNKNOWN_WEBHOOK');
    if (!(permissions & Permission.MANAGE_WEBHOOKS)) throw ApiError.of('MISSING_PERMISSIONS');
    return webhook;
  }

  private async storeAvatar(avatar: string | null | undefined): Promise<string | null | undefined> {
    if (avatar === undefined || avatar === null) return avatar;
    const image = decodeAvatar(avatar);
    await this.deps.store.saveAvatar(image.hash, image.contentType, image.data);
    return image.hash;
  }

  /** `viewerId`: the user it is shown to (by id); without one, the token's holder. */
  private async render(webhook: WebhookRecord, withUser: boolean, viewerId?: string): Promise<WebhookView> {
    const user = withUser && webhook.userId ? (await this.deps.users.users([webhook.userId])).get(webhook.userId) : undefined;
    return renderWebhook(webhook, {
      vault: this.deps.vault,
      apiUrl: this.deps.apiUrl,
      ...(withUser ? { user: user ?? null } : {}),
      showToken: webhook.type === WebhookType.INCOMING || (viewerId !== undefined && isApplicationsOwn(webhook, viewerId)),
    });
  }

  private async renderAll(webhooks: WebhookRecord[], viewerId: string): Promise<WebhookView[]> {
    const userIds = [...new Set(webhooks.flatMap((w) => (w.userId ? [w.userId] : [])))];
    const users = userIds.length > 0 ? await this.deps.users.users(userIds) : new Map<string, unknown>();
    return webhooks.map((w) =>
      renderWebhook(w, {
        vault: this.deps.vault,
        apiUrl: this.deps.apiUrl,
        user: (w.userId && users.get(w.userId)) ?? null,
        showToken: w.type === WebhookType.INCOMING || isApplicationsOwn(w, viewerId),
      }),
    );
  }
}

/** An APPLICATION webhook seen by its application's own user: the one caller shown its token. */
const isApplicationsOwn = (w: WebhookRecord, userId: string): boolean =>
  w.type === WebhookType.APPLICATION && !!w.applicationUserId && w.applicationUserId === userId;
