import type { ServiceClient } from '@kith/platform';
import type { GuildsService } from '@kith/proto/guilds/v1/guilds';
import type { GuildMembership } from '../domain/boosts.service.js';

/** Whether a guild exists and the user is in it, from guilds over gRPC. */
export class GrpcGuildMembership implements GuildMembership {
  constructor(private readonly guilds: ServiceClient<typeof GuildsService>) {}

  async membership(guildId: string, userId: string): Promise<'member' | 'not_member' | 'unknown_guild'> {
    const guild = await this.guilds.getGuild({ guildId });
    if (!guild.found) return 'unknown_guild';
    const member = await this.guilds.getMember({ guildId, userId });
    return member.found ? 'member' : 'not_member';
  }
}
