import { channelAudience, privateThreadViewerIds } from './channel.audience.js';
import { renderChannel } from './channel.view.js';
import type { Overwrite } from './permissions.js';
import type { GuildsTx } from './ports.js';
import { ChannelType, type ChannelRecord } from './records.js';

/**
 * Writes a guild channel's (or thread's) event into the outbox, addressed to who sees it.
 * `visibility` are the overwrites deciding who sees the channel (a thread's: its parent's) before
 * and/or after the change; `data` defaults to the channel as rendered now.
 */
export async function emitChannelEvent(
  tx: GuildsTx,
  name: string,
  row: ChannelRecord,
  visibility: readonly (readonly Overwrite[])[],
  data?: unknown,
): Promise<void> {
  const guild = await tx.channels.snapshot(row.guild_id!);
  if (!guild) return;
  const payload = data ?? renderChannel(row, await tx.channels.overwrites(row.id));
  const audience =
    row.type === ChannelType.PRIVATE_THREAD
      ? { users: [...new Set(visibility.flatMap((overwrites) => privateThreadViewerIds(guild, overwrites, row.owner_id)))] }
      : channelAudience(guild, visibility);
  await tx.emit([{ name, audience, data: payload }]);
}
