import type { ChannelData, ContractUser, GuildData } from '@kith/platform';
import { ShortCache } from './short.cache.js';
import { inviteView, type ViewOptions } from './invite.view.js';
import type { InviteRecord } from './invite.types.js';
import type { GuildDirectory, UserDirectory } from './ports.js';

/** Renders invites with what they show, each guild, channel and user fetched once per call. */
export class InviteRenderer {
  private readonly guildCache: ShortCache<GuildData | undefined>;
  private readonly channelCache: ShortCache<ChannelData | undefined>;
  private readonly userCache: ShortCache<ContractUser | undefined>;

  /** `cacheMs`: how long what an invite shows may be reused (0: asked every time). */
  constructor(
    private readonly guilds: GuildDirectory,
    private readonly users: UserDirectory,
    cacheMs = 0,
  ) {
    this.guildCache = new ShortCache(cacheMs);
    this.channelCache = new ShortCache(cacheMs);
    this.userCache = new ShortCache(cacheMs);
  }

  private async usersOf(ids: readonly string[]): Promise<Map<string, ContractUser>> {
    const unique = [...new Set(ids)];
    let batch: Promise<Map<string, ContractUser>> | undefined;
    const all = () => (batch ??= this.users.users(unique));
    const found = await Promise.all(unique.map((id) => this.userCache.get(id, async () => (await all()).get(id))));
    return new Map(unique.flatMap((id, i) => (found[i] ? [[id, found[i]] as const] : [])));
  }

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
      Promise.all(
        guildIds.map(async (id) => (known.guild?.id === id ? known.guild : this.guildCache.get(id, () => this.guilds.guild(id)))),
      ),
      Promise.all(
        channelIds.map(async (id) => (known.channel?.id === id ? known.channel : this.channelCache.get(id, () => this.guilds.channel(id)))),
      ),
      this.usersOf(userIds),
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
