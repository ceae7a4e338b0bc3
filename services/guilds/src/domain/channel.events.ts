import type { Outbox } from '@kith/platform';
import type { Transaction } from 'kysely';
import { ChannelType, type ChannelRow, type PgAccess } from '../store/access.store.js';
import type { PgChannelStore } from '../store/channel.store.js';
import type { GuildsDatabase } from '../store/schema.js';
import { channelAudience, privateThreadViewerIds } from './channel.audience.js';
import { renderChannel } from './channel.view.js';
import type { Overwrite } from './permissions.js';

export type Trx = Transaction<GuildsDatabase>;

/** Writes a guild channel's (or thread's) events into the outbox, addressed to who sees it. */
export class GuildChannelEvents {
  constructor(
    private readonly store: PgChannelStore,
    private readonly access: PgAccess,
    private readonly outbox: Outbox,
  ) {}

  /**
   * `visibility` are the overwrites deciding who sees the channel (a thread's: its parent's)
   * before and/or after the change; `data` defaults to the channel as rendered now.
   */
  async emit(trx: Trx, name: string, row: ChannelRow, visibility: readonly (readonly Overwrite[])[], data?: unknown): Promise<void> {
    const guild = await this.store.snapshot(trx, row.guild_id!);
    if (!guild) return;
    const payload = data ?? renderChannel(row, await this.access.overwrites(row.id, trx));
    const audience =
      row.type === ChannelType.PRIVATE_THREAD
        ? { users: [...new Set(visibility.flatMap((overwrites) => privateThreadViewerIds(guild, overwrites, row.owner_id)))] }
        : channelAudience(guild, visibility);
    await this.outbox.enqueue(trx, [{ name, audience, data: payload }]);
  }
}
