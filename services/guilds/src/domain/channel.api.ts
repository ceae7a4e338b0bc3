import type { ChannelData } from '@kith/platform';
import { ChannelType, isThread } from '../store/access.store.js';
import { overwriteSourceOf, type PgChannelStore } from '../store/channel.store.js';
import type { PgDmStore } from '../store/dm.store.js';
import { compareIds, privateThreadViewerIds, viewerIds } from './channel.audience.js';
import type { ModifyChannelInput } from './channel.input.js';
import type { ChannelService } from './channel.service.js';
import type { ThreadService } from './channel.threads.js';
import { renderChannel, toChannel } from './channel.view.js';
import type { DmService } from './dm.service.js';

/** `/channels/{id}` for every kind of channel: each kind's service decides what the verb means. */
export class ChannelApi {
  constructor(
    private readonly store: PgChannelStore,
    readonly channels: ChannelService,
    readonly threads: ThreadService,
    readonly dms: DmService,
    private readonly dmStore: PgDmStore,
  ) {}

  /** A channel for other services, as the contract carries it (a private channel with every recipient). */
  async describe(channelId: string): Promise<ChannelData | undefined> {
    const row = await this.store.get(this.store.db, channelId);
    if (!row) return undefined;
    if (row.guild_id === null) return this.dms.describe(row);
    return toChannel(row, isThread(row.type) ? [] : await this.channels.overwritesOf(row.id));
  }

  /** Who can see a channel, ascending: members with VIEW_CHANNEL (a thread: in its parent) or the recipients. */
  async viewerIds(channelId: string): Promise<string[]> {
    const row = await this.store.get(this.store.db, channelId);
    if (!row) return [];
    if (row.guild_id === null) return (await this.dmStore.participantIds(this.store.db, row)).sort(compareIds);
    const guild = await this.store.snapshot(this.store.db, row.guild_id);
    if (!guild) return [];
    const overwrites = await this.channels.overwritesOf(overwriteSourceOf(row));
    if (row.type === ChannelType.PRIVATE_THREAD) return privateThreadViewerIds(guild, overwrites, row.owner_id);
    return viewerIds(guild, overwrites).sort(compareIds);
  }

  async get(userId: string, channelId: string): Promise<Record<string, unknown>> {
    const { channel } = await this.channels.visible(channelId, userId);
    if (channel.guild_id === null) return this.dms.render(channel, userId);
    return renderChannel(channel, isThread(channel.type) ? [] : await this.channels.overwritesOf(channel.id));
  }

  modify(userId: string, channelId: string, input: ModifyChannelInput): Promise<Record<string, unknown>> {
    return this.store.transaction(async (trx) => {
      // Concurrent changes of one channel (and their event audiences) happen one after the other.
      await this.store.lockChannel(trx, channelId);
      const access = await this.channels.visible(channelId, userId, trx);
      if (access.channel.guild_id === null) return this.dms.rename(trx, access.channel, userId, input.name);
      if (isThread(access.channel.type)) return this.threads.modify(trx, access, input, userId);
      return this.channels.modify(trx, access, input);
    });
  }

  delete(userId: string, channelId: string): Promise<Record<string, unknown>> {
    return this.store.transaction(async (trx) => {
      await this.store.lockChannel(trx, channelId);
      const access = await this.channels.visible(channelId, userId, trx);
      if (access.channel.guild_id === null) return this.dms.close(trx, access.channel, userId);
      if (isThread(access.channel.type)) return this.threads.delete(trx, access);
      return this.channels.deleteGuildChannel(trx, access);
    });
  }
}
