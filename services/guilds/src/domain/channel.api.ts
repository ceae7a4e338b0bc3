import type { ChannelData } from '@kith/platform';
import { compareIds, everyoneSees, privateThreadViewerIds, viewerIds } from './channel.audience.js';
import type { ModifyChannelInput } from './channel.input.js';
import type { ChannelService } from './channel.service.js';
import type { ThreadService } from './channel.threads.js';
import { renderChannel, toChannel } from './channel.view.js';
import type { DmService } from './dm.service.js';
import type { GuildsStore } from './ports.js';
import { Permission } from './permissions.js';
import { ChannelType, isThread, overwriteSourceOf } from './records.js';

/** `/channels/{id}` for every kind of channel: each kind's service decides what the verb means. */
export class ChannelApi {
  constructor(
    private readonly store: GuildsStore,
    readonly channels: ChannelService,
    readonly threads: ThreadService,
    readonly dms: DmService,
  ) {}

  /** A channel for other services, as the contract carries it (a private channel with every recipient). */
  async describe(channelId: string): Promise<ChannelData | undefined> {
    const row = await this.store.channels.get(channelId);
    if (!row) return undefined;
    if (row.guild_id === null) return this.dms.describe(row);
    return toChannel(row, isThread(row.type) ? [] : await this.store.channels.overwrites(row.id));
  }

  /**
   * Who can see a channel, ascending: members with VIEW_CHANNEL (a thread: in its parent) or the
   * recipients. `required`: only the members who also have these permissions there.
   */
  async viewerIds(channelId: string, required = 0n): Promise<string[]> {
    return (await this.viewers(channelId, required)).ids;
  }

  /**
   * `viewerIds`, and whether they are every member of the guild (no `required`, not a private
   * thread, and the channel, or a thread's parent, hides from no one).
   */
  async viewers(channelId: string, required = 0n): Promise<{ ids: string[]; wholeGuild: boolean }> {
    const row = await this.store.channels.get(channelId);
    if (!row) return { ids: [], wholeGuild: false };
    if (row.guild_id === null) return { ids: (await this.store.dms.participants(row)).sort(compareIds), wholeGuild: false };
    const guild = await this.store.channels.snapshot(row.guild_id);
    if (!guild) return { ids: [], wholeGuild: false };
    const overwrites = await this.store.channels.overwrites(overwriteSourceOf(row));
    if (row.type === ChannelType.PRIVATE_THREAD) {
      const withRequired = new Set(viewerIds(guild, overwrites, required | Permission.VIEW_CHANNEL));
      return { ids: privateThreadViewerIds(guild, overwrites, row.owner_id).filter((id) => withRequired.has(id)), wholeGuild: false };
    }
    const ids = viewerIds(guild, overwrites, required | Permission.VIEW_CHANNEL).sort(compareIds);
    const wholeGuild = required === 0n && everyoneSees(guild.guildId, guild.roles.get(guild.guildId) ?? 0n, overwrites);
    return { ids, wholeGuild };
  }

  async get(userId: string, channelId: string): Promise<Record<string, unknown>> {
    const { channel } = await this.channels.visible(channelId, userId);
    if (channel.guild_id === null) return this.dms.render(channel, userId);
    return renderChannel(channel, isThread(channel.type) ? [] : await this.store.channels.overwrites(channel.id));
  }

  modify(userId: string, channelId: string, input: ModifyChannelInput): Promise<Record<string, unknown>> {
    return this.store.transaction(async (tx) => {
      // Concurrent changes of one channel (and their event audiences) happen one after the other.
      await tx.channels.lock(channelId);
      const access = await this.channels.visible(channelId, userId, tx);
      if (access.channel.guild_id === null) return this.dms.rename(tx, access.channel, userId, input.name);
      if (isThread(access.channel.type)) return this.threads.modify(tx, access, input, userId);
      return this.channels.modify(tx, access, input);
    });
  }

  delete(userId: string, channelId: string): Promise<Record<string, unknown>> {
    return this.store.transaction(async (tx) => {
      await tx.channels.lock(channelId);
      const access = await this.channels.visible(channelId, userId, tx);
      if (access.channel.guild_id === null) return this.dms.close(tx, access.channel, userId);
      if (isThread(access.channel.type)) return this.threads.delete(tx, access);
      return this.channels.deleteGuildChannel(tx, access);
    });
  }
}
