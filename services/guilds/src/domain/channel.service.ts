import { ApiError, channelView, type ChannelData } from '@kith/platform';
import { emitChannelEvent } from './channel.events.js';
import type { CreateChannelInput, ModifyChannelInput, OverwriteInput, PositionInput } from './channel.input.js';
import { renderChannel, toChannel } from './channel.view.js';
import { guildErrors, invalidField } from './guild.errors.js';
import { channelPermissions, hasAll, Permission, type GuildPermissionContext, type Overwrite } from './permissions.js';
import type { ChannelAccess, GuildAccess, GuildsStore, GuildsTx, GuildsUnit, IdSource } from './ports.js';
import { ChannelType, isThread, type ChannelPatch, type ChannelRecord } from './records.js';

export const MAX_GUILD_CHANNELS = 500;
export const MAX_CATEGORY_CHANNELS = 50;

/** Text-like channel names are lowercase with dashes for spaces, as the platform stores them. */
export function normaliseName(type: number, name: string): string {
  const trimmed = name.trim();
  if (type === ChannelType.GUILD_VOICE || type === ChannelType.GUILD_CATEGORY || type === ChannelType.GUILD_STAGE_VOICE) return trimmed;
  return trimmed.toLowerCase().replace(/\s+/g, '-');
}

/** A private thread is seen by its creator and moderators (MANAGE_THREADS) only; other threads as their parent. */
export const seesThread = (channel: ChannelRecord, userId: string, permissions: bigint): boolean =>
  channel.type !== ChannelType.PRIVATE_THREAD || channel.owner_id === userId || hasAll(permissions, Permission.MANAGE_THREADS);

/** What the schema cannot know without the type: a name left empty by trimming, a forum's longer topic. */
function checkTextFields(type: number, name: string, topic: string | null | undefined): void {
  if (name.length === 0) throw invalidField('name', 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
  const maxTopic = type === ChannelType.GUILD_FORUM ? 4096 : 1024;
  if (topic && [...topic].length > maxTopic)
    throw invalidField('topic', 'BASE_TYPE_BAD_LENGTH', `Must be between 0 and ${maxTopic} in length.`);
}

/**
 * A guild's channels (threads excluded) as one member sees them, rendered: GET /guilds/{id}/channels
 * and the `channels` of GUILD_CREATE and READY.
 */
export async function visibleGuildChannels(
  unit: Pick<GuildsUnit, 'channels'>,
  guildId: string,
  ctx: GuildPermissionContext,
): Promise<ChannelData[]> {
  const { rows, overwrites } = await unit.channels.listInGuildWithOverwrites(guildId);
  return rows.flatMap((row) => {
    const own = overwrites.get(row.id) ?? [];
    return channelPermissions(ctx, own) & Permission.VIEW_CHANNEL ? [toChannel(row, own)] : [];
  });
}

/** Overwrites as given, one per target (a repeated target: the last one counts). */
const toOverwrites = (list: readonly OverwriteInput[]): Overwrite[] => [
  ...new Map(list.map((o) => [o.id, { id: o.id, type: o.type, allow: o.allow ?? 0n, deny: o.deny ?? 0n }])).values(),
];

/** A caller may only allow or deny what they have; MANAGE_ROLES in overwrites only as an administrator. */
export function assertGrantable(held: bigint, overwrites: readonly Overwrite[]): void {
  if (held & Permission.ADMINISTRATOR) return;
  for (const o of overwrites) {
    const bits = o.allow | o.deny;
    if (bits & ~held || bits & Permission.MANAGE_ROLES) throw ApiError.of('MISSING_PERMISSIONS');
  }
}

/** Guild channels: listing, creating, changing, ordering, deleting and their permission overwrites. */
export class ChannelService {
  constructor(
    private readonly store: GuildsStore,
    private readonly ids: IdSource,
  ) {}

  /** The caller's access to a guild they are a member of; 10004 when there is no such guild, 50001 when they are not in it. */
  async memberAccess(
    guildId: string,
    userId: string,
    unit: GuildsUnit = this.store,
  ): Promise<GuildAccess & { ctx: NonNullable<GuildAccess['ctx']> }> {
    const guild = await unit.access.guild(guildId, userId);
    if (!guild) throw ApiError.of('UNKNOWN_GUILD');
    if (!guild.ctx) throw ApiError.of('MISSING_ACCESS');
    return guild as GuildAccess & { ctx: NonNullable<GuildAccess['ctx']> };
  }

  /**
   * A channel the caller can see (a member with VIEW_CHANNEL, or a recipient). 10003 only when no
   * such channel exists; one that exists but the caller may not see is 50001 Missing Access, as
   * the platform answers.
   */
  async visible(channelId: string, userId: string, unit: GuildsUnit = this.store): Promise<ChannelAccess> {
    const access = await unit.access.channel(channelId, userId);
    if (!access) throw ApiError.of('UNKNOWN_CHANNEL');
    if (!access.member) throw ApiError.of('MISSING_ACCESS');
    if (access.channel.guild_id !== null && !(access.permissions & Permission.VIEW_CHANNEL)) throw ApiError.of('MISSING_ACCESS');
    if (!seesThread(access.channel, userId, access.permissions)) throw ApiError.of('MISSING_ACCESS');
    return access;
  }

  async list(userId: string, guildId: string): Promise<Record<string, unknown>[]> {
    const guild = await this.memberAccess(guildId, userId);
    return (await visibleGuildChannels(this.store, guildId, guild.ctx)).map((c) => channelView(c));
  }

  async create(userId: string, guildId: string, input: CreateChannelInput): Promise<Record<string, unknown>> {
    const type = input.type ?? ChannelType.GUILD_TEXT;
    return this.store.transaction(async (tx) => {
      await tx.guilds.lock(guildId);
      const guild = await this.memberAccess(guildId, userId, tx);
      if (!hasAll(guild.permissions, Permission.MANAGE_CHANNELS)) throw ApiError.of('MISSING_PERMISSIONS');
      const overwrites = toOverwrites(input.permission_overwrites ?? []);
      assertGrantable(guild.permissions, overwrites);
      if (input.parent_id) await this.checkParent(tx, guildId, type, input.parent_id);
      if ((await tx.channels.countInGuild(guildId)) >= MAX_GUILD_CHANNELS) throw guildErrors.maxGuildChannels();
      const voice = type === ChannelType.GUILD_VOICE;
      const name = normaliseName(type, input.name);
      checkTextFields(type, name, input.topic);
      const row = await tx.channels.insert({
        id: this.ids.next(),
        type,
        guild_id: guildId,
        name,
        position: input.position ?? (await tx.channels.nextPosition(guildId)),
        topic: voice || type === ChannelType.GUILD_CATEGORY ? null : (input.topic ?? null),
        nsfw: input.nsfw ?? false,
        bitrate: voice ? (input.bitrate ?? 64000) : null,
        user_limit: voice ? (input.user_limit ?? 0) : null,
        rate_limit_per_user: input.rate_limit_per_user ?? 0,
        parent_id: input.parent_id ?? null,
        default_auto_archive_duration: input.default_auto_archive_duration ?? null,
        available_tags: type === ChannelType.GUILD_FORUM ? [] : null,
      });
      await tx.channels.replaceOverwrites(row.id, overwrites);
      await emitChannelEvent(tx, 'CHANNEL_CREATE', row, [overwrites]);
      return renderChannel(row, overwrites);
    });
  }

  /** A new parent must be a category of the same guild with room; categories have no parent. */
  private async checkParent(tx: GuildsUnit, guildId: string, type: number, parentId: string): Promise<void> {
    if (type === ChannelType.GUILD_CATEGORY)
      throw invalidField('parent_id', 'CHANNEL_PARENT_INVALID_TYPE', 'Categories cannot have subcategories');
    const parent = await tx.channels.get(parentId);
    if (parent?.guild_id !== guildId || parent.type !== ChannelType.GUILD_CATEGORY)
      throw invalidField('parent_id', 'CHANNEL_PARENT_INVALID_TYPE', 'Not a category');
    if ((await tx.channels.countInCategory(parentId)) >= MAX_CATEGORY_CHANNELS)
      throw invalidField(
        'parent_id',
        'CHANNEL_PARENT_MAX_CHANNELS',
        `Maximum number of channels in category reached (${MAX_CATEGORY_CHANNELS})`,
      );
  }

  /** PATCH of a guild channel (not a thread, not a private channel). */
  async modify(tx: GuildsTx, access: ChannelAccess, input: ModifyChannelInput): Promise<Record<string, unknown>> {
    const { channel } = access;
    if (!hasAll(access.permissions, Permission.MANAGE_CHANNELS)) throw ApiError.of('MISSING_PERMISSIONS');
    const before = await tx.channels.overwrites(channel.id);
    let after = before;
    if (input.permission_overwrites != null) {
      if (!hasAll(access.permissions, Permission.MANAGE_ROLES)) throw ApiError.of('MISSING_PERMISSIONS');
      after = toOverwrites(input.permission_overwrites);
      // Overwrites sent back unchanged (set by someone holding more) are not the caller's grant.
      const same = (a: Overwrite, b: Overwrite) => a.id === b.id && a.type === b.type && a.allow === b.allow && a.deny === b.deny;
      assertGrantable(
        access.permissions,
        after.filter((o) => !before.some((b) => same(o, b))),
      );
      await tx.channels.replaceOverwrites(channel.id, after);
    }
    if (input.parent_id != null && input.parent_id !== channel.parent_id)
      await this.checkParent(tx, channel.guild_id!, channel.type, input.parent_id);
    const row = await tx.channels.update(channel.id, this.patchOf(channel, input));
    await emitChannelEvent(tx, 'CHANNEL_UPDATE', row, [before, after]);
    return renderChannel(row, after);
  }

  private patchOf(channel: ChannelRecord, input: ModifyChannelInput): ChannelPatch {
    const patch: ChannelPatch = {};
    if (input.name !== undefined) patch.name = normaliseName(channel.type, input.name);
    checkTextFields(channel.type, patch.name ?? channel.name ?? 'x', input.topic);
    if (input.topic !== undefined) patch.topic = input.topic;
    if (input.nsfw != null) patch.nsfw = input.nsfw;
    if (input.rate_limit_per_user != null) patch.rate_limit_per_user = input.rate_limit_per_user;
    if (input.position != null) patch.position = input.position;
    if (input.parent_id !== undefined) patch.parent_id = input.parent_id;
    if (input.default_auto_archive_duration !== undefined) patch.default_auto_archive_duration = input.default_auto_archive_duration;
    if (channel.type === ChannelType.GUILD_VOICE) {
      if (input.bitrate != null) patch.bitrate = input.bitrate;
      if (input.user_limit != null) patch.user_limit = input.user_limit;
    }
    return patch;
  }

  /** Reorders and re-parents channels of a guild; one CHANNEL_UPDATE per channel that moved. */
  async reorder(userId: string, guildId: string, items: readonly PositionInput[]): Promise<void> {
    await this.store.transaction(async (tx) => {
      await tx.guilds.lock(guildId);
      const guild = await this.memberAccess(guildId, userId, tx);
      if (!hasAll(guild.permissions, Permission.MANAGE_CHANNELS)) throw ApiError.of('MISSING_PERMISSIONS');
      const rows = new Map((await tx.channels.listInGuild(guildId)).map((r) => [r.id, r]));
      for (const [index, item] of items.entries()) {
        const channel = rows.get(item.id);
        if (!channel) throw invalidField(`${index}.id`, 'CHANNEL_INVALID', 'Channel is not in this guild');
        const patch: ChannelPatch = {};
        if (item.position != null) patch.position = item.position;
        if (item.parent_id !== undefined && item.parent_id !== channel.parent_id) {
          if (item.parent_id !== null) await this.checkParent(tx, guildId, channel.type, item.parent_id);
          patch.parent_id = item.parent_id;
        }
        if (Object.keys(patch).length === 0) continue;
        const before = await tx.channels.overwrites(channel.id);
        let after = before;
        if (item.lock_permissions && patch.parent_id) {
          after = await tx.channels.overwrites(patch.parent_id);
          await tx.channels.replaceOverwrites(channel.id, after);
        }
        const row = await tx.channels.update(channel.id, patch);
        await emitChannelEvent(tx, 'CHANNEL_UPDATE', row, [before, after]);
      }
    });
  }

  /** Deletes a guild channel (MANAGE_CHANNELS) and answers it as it was. */
  async deleteGuildChannel(tx: GuildsTx, access: ChannelAccess): Promise<Record<string, unknown>> {
    if (!hasAll(access.permissions, Permission.MANAGE_CHANNELS)) throw ApiError.of('MISSING_PERMISSIONS');
    const { channel } = access;
    const overwrites = await tx.channels.overwrites(channel.id);
    const rendered = renderChannel(channel, overwrites);
    // The audience is computed before the row goes: afterwards nobody "sees" it.
    await emitChannelEvent(tx, 'CHANNEL_DELETE', channel, [overwrites], rendered);
    const children = (await tx.channels.listInGuild(channel.guild_id!)).filter((c) => c.parent_id === channel.id);
    await tx.channels.delete(channel);
    // A deleted category's channels stay, without a category: clients hear they moved.
    for (const child of children) {
      const own = await tx.channels.overwrites(child.id);
      await emitChannelEvent(tx, 'CHANNEL_UPDATE', { ...child, parent_id: null }, [own]);
    }
    return rendered;
  }

  async putOverwrite(userId: string, channelId: string, overwrite: Overwrite): Promise<void> {
    await this.changeOverwrites(userId, channelId, async (tx, channel, held) => {
      assertGrantable(held, [overwrite]);
      const target =
        overwrite.type === 0 ? await tx.roles.get(channel.guild_id!, overwrite.id) : await tx.members.get(channel.guild_id!, overwrite.id);
      if (!target) throw overwrite.type === 0 ? guildErrors.unknownRole() : guildErrors.unknownMember();
      await tx.channels.putOverwrite(channel.id, overwrite);
    });
  }

  async deleteOverwrite(userId: string, channelId: string, targetId: string): Promise<void> {
    await this.changeOverwrites(userId, channelId, async (tx, channel) => {
      await tx.channels.deleteOverwrite(channel.id, targetId);
    });
  }

  /**
   * A role is being deleted (in `tx`, the guild row locked): its overwrites go with it, and each
   * channel that had one is announced as it now is. Called before the role row goes, so the
   * audience is reckoned with the role still held: its holders hear of the channel too.
   */
  async dropRoleOverwrites(tx: GuildsTx, guildId: string, roleId: string): Promise<void> {
    for (const channel of await tx.channels.withOverwriteFor(guildId, roleId)) {
      const before = await tx.channels.overwrites(channel.id);
      await tx.channels.deleteOverwrite(channel.id, roleId);
      await emitChannelEvent(tx, 'CHANNEL_UPDATE', channel, [before, await tx.channels.overwrites(channel.id)]);
    }
  }

  /** MANAGE_ROLES in a guild channel (threads and private channels have no overwrites). */
  private async changeOverwrites(
    userId: string,
    channelId: string,
    change: (tx: GuildsTx, channel: ChannelRecord, held: bigint) => Promise<void>,
  ) {
    await this.store.transaction(async (tx) => {
      await tx.channels.lock(channelId);
      const access = await this.visible(channelId, userId, tx);
      const { channel } = access;
      if (channel.guild_id === null || isThread(channel.type)) throw guildErrors.wrongChannelType();
      if (!hasAll(access.permissions, Permission.MANAGE_ROLES)) throw ApiError.of('MISSING_PERMISSIONS');
      const before = await tx.channels.overwrites(channel.id);
      await change(tx, channel, access.permissions);
      await emitChannelEvent(tx, 'CHANNEL_UPDATE', channel, [before, await tx.channels.overwrites(channel.id)]);
    });
  }
}
