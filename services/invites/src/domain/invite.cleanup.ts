import type { EventEnvelope } from '@kith/platform';
import type { InviteStore } from './ports.js';

/**
 * A guild or channel that guilds deleted takes its invites with it. A guild's deletion is the
 * GUILD_DELETE sent to the guild itself (one sent to a user is that user leaving); a channel's, a
 * CHANNEL_DELETE of a guild channel. Nobody is left to hear INVITE_DELETE, so none is sent.
 */
export class InviteCleanup {
  constructor(private readonly store: Pick<InviteStore, 'deleteWhere'>) {}

  async handle(event: Pick<EventEnvelope<{ id?: unknown; guild_id?: unknown }>, 'name' | 'audience' | 'data'>): Promise<number> {
    const id = typeof event.data?.id === 'string' ? event.data.id : undefined;
    if (!id) return 0;
    if (event.name === 'GUILD_DELETE' && event.audience.guilds?.includes(id)) {
      return (await this.store.deleteWhere({ guildId: id }, () => [])).length;
    }
    if (event.name === 'CHANNEL_DELETE') return (await this.store.deleteWhere({ channelId: id }, () => [])).length;
    return 0;
  }
}
