import type { ChannelData, GuildData, MemberData } from '@kith/platform';
import type { DmService } from './dm.service.js';
import { toGuild, toMember } from './guild.view.js';
import { guildCreateFor, type GuildCreate } from './membership.service.js';
import type { GuildsStore, UserDirectory } from './ports.js';
import type { MutualGuild } from './records.js';
import { userOf } from './user.directory.js';

/** What other services read of guilds (gRPC): guilds, members, shared guilds, READY. */
export class LookupService {
  constructor(
    private readonly store: GuildsStore,
    private readonly users: UserDirectory,
    private readonly dms: DmService,
  ) {}

  /** The guild with its roles; its custom emojis only when asked (other services' lookups do without). */
  async guild(guildId: string, withEmojis = false): Promise<GuildData | undefined> {
    const guild = await this.store.guilds.get(guildId);
    if (!guild) return undefined;
    const [roles, emojis] = await Promise.all([this.store.roles.list(guildId), withEmojis ? this.store.emojis.list(guildId) : []]);
    return toGuild(guild, roles, emojis);
  }

  async member(guildId: string, userId: string): Promise<MemberData | undefined> {
    const member = await this.store.members.get(guildId, userId);
    return member && toMember(member);
  }

  memberIds(guildId: string, after: string | null, limit: number): Promise<string[]> {
    return this.store.members.ids(guildId, after, limit);
  }

  mutualGuilds(userId: string, otherUserId: string): Promise<MutualGuild[]> {
    return this.store.guilds.mutual(userId, otherUserId);
  }

  /** READY: every guild as GUILD_CREATE carries it, and the private channels GET /users/@me/channels lists. */
  async readyState(userId: string): Promise<{ guilds: GuildCreate[]; privateChannels: ChannelData[] }> {
    const [guildIds, privateChannels, self] = await Promise.all([
      this.store.guilds.idsOf(userId),
      // The very list GET /users/@me/channels answers: closed DMs left out.
      this.dms.listOpen(userId),
      userOf(this.users, userId),
    ]);
    // Every guild's emojis in one read (most guilds have none).
    const emojis = await this.store.emojis.listMany(guildIds);
    // Concurrent reads: the pool bounds how many run at once.
    const rendered = await Promise.all(
      guildIds.map(async (guildId) => {
        const [guild, member] = await Promise.all([this.store.guilds.get(guildId), this.store.members.get(guildId, userId)]);
        // Left or deleted between the reads: not in READY.
        return guild && member ? guildCreateFor(this.store, guild, member, self, undefined, emojis.get(guildId) ?? []) : undefined;
      }),
    );
    return { guilds: rendered.filter((g) => g !== undefined), privateChannels };
  }
}
