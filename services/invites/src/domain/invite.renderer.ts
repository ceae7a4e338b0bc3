import type { ChannelData, GuildData } from '@kith/platform';
import { inviteView, type ViewOptions } from './invite.view.js';
import type { InviteRecord } from './invite.types.js';
import type { GuildDirectory, UserDirectory } from './ports.js';

/** Renders invites with what they show, each guild, channel and user fetched once per call. */
export class InviteRenderer {
  constructor(
    private readonly guilds: GuildDirectory,
    private readonly users: UserDirectory,
  ) {}

  async one(invite: InviteRecord, options: ViewOptions = {}, known: { channel?: ChannelData; guild?: GuildData } = {}) {
    return (await this.many([invite], options, known))[0]!;
  }

  async many(
    invites: readonly InviteRecord[],
    options: ViewOptions = {},
    known: { channel?: ChannelData | undefined; guild?: GuildData | undefined } = {},
  ): Promise<Record<string, unknown>[]> {
    if (invites.length === 0) return [];
    const guildIds = [...new Set(invites.map((i) => i.guild_id).filter((id): id is string => id !== null))];
    const channelIds = [...new Set(invites.map((i) => i.channel_id).filter((id): id is string => id !== null))];
    const userIds = invites.flatMap((i) => [i.inviter_id, ...(i.target_user_id ? [i.target_user_id] : [])]);
    const [guilds, channels, users] = await Promise.all([
      Promise.all(guildIds.map(async (id) => (known.guild?.id === id ? known.guild : this.guilds.guild(id)))),
      Promise.all(channelIds.map(async (id) => (known.channel?.id === id ? known.channel : this.guilds.channel(id)))),
      this.users.users(userIds),
    ]);
    const guildOf = new Map(guildIds.map((id, i) => [id, guilds[i]]));
    const channelOf = new Map(channelIds.map((id, i) => [id, channels[i]]));
    return invites.map((invite) =>
      inviteView(
        invite,
        {
          guild: invite.guild_id ? guildOf.get(invite.guild_id) : undefined,
          channel: invite.channel_id ? channelOf.get(invite.channel_id) : undefined,
          users,
        },
        options,
      ),
    );
  }
}
