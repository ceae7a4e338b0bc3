import { ApiError } from '@kith/platform';
import { integrationDeleted } from './integration.events.js';
import { integrationView } from './integration.view.js';
import type { IntegrationsService } from './integrations.service.js';
import { GROUP_DM, MAX_LISTED } from './model.js';
import type { GuildsPort, IntegrationsStorePort, PrivateChannel } from './ports.js';

/** Applications installed in a group DM, as its recipients see and remove them. */
export class ChannelIntegrationsService {
  constructor(
    private readonly store: IntegrationsStorePort,
    private readonly guilds: GuildsPort,
    private readonly views: Pick<IntegrationsService, 'context'>,
  ) {}

  async list(userId: string, channelId: string): Promise<Record<string, unknown>[]> {
    await this.privateChannel(userId, channelId);
    const rows = await this.store.listChannel(channelId, MAX_LISTED);
    const ctx = await this.views.context(rows, true, false);
    return rows.map((row) => integrationView(row, ctx));
  }

  async delete(userId: string, channelId: string, integrationId: string): Promise<void> {
    const channel = await this.privateChannel(userId, channelId);
    const row = await this.store.get(integrationId);
    if (!row || row.channel_id !== channelId) throw ApiError.of('UNKNOWN_INTEGRATION');
    await this.store.transaction(async (tx) => {
      if (!(await tx.delete(row.id))) throw ApiError.of('UNKNOWN_INTEGRATION');
      await tx.emit([integrationDeleted(row, channel.recipientIds)]);
    });
  }

  /** A channel the user can see (10003 otherwise) that is a group DM (50001 for any other kind). */
  private async privateChannel(userId: string, channelId: string): Promise<PrivateChannel> {
    const channel = await this.guilds.channel(channelId);
    if (!channel) throw ApiError.of('UNKNOWN_CHANNEL');
    if (channel.guildId !== '') {
      const check = await this.guilds.permissions(userId, channel.guildId, 0n);
      if (!check.member) throw ApiError.of('UNKNOWN_CHANNEL');
      throw ApiError.of('MISSING_ACCESS');
    }
    if (!channel.recipientIds.includes(userId)) throw ApiError.of('UNKNOWN_CHANNEL');
    if (channel.type !== GROUP_DM) throw ApiError.of('MISSING_ACCESS');
    return channel;
  }
}
