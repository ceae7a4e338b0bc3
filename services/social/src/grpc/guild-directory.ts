import type { Logger, MemberData, ServiceClient } from '@kith/platform';
import type { GuildsService } from '@kith/proto/guilds/v1/guilds';
import type { GuildDirectory, MutualGuild } from '../domain/ports.js';

/**
 * The guilds service over gRPC. When it cannot answer, two users share no guild: a privacy setting
 * that admits only mutual guilds then refuses the request (fail closed) rather than letting a
 * stranger through.
 */
export class GrpcGuildDirectory implements GuildDirectory {
  constructor(
    private readonly guilds: ServiceClient<typeof GuildsService>,
    private readonly logger: Logger,
  ) {}

  async mutualGuilds(a: string, b: string): Promise<MutualGuild[]> {
    try {
      const { guilds } = await this.guilds.listMutualGuildIds({ userId: a, otherUserId: b });
      return guilds.map((g) => ({ id: g.id, memberCount: g.memberCount, nick: g.nick ?? null }));
    } catch (err) {
      this.logger.warn({ err }, 'guilds unavailable: treating the pair as sharing no guild');
      return [];
    }
  }

  /** The user's member object in a guild; undefined when they are not in it. */
  async member(guildId: string, userId: string): Promise<MemberData | undefined> {
    const answer = await this.guilds.getMember({ guildId, userId });
    return answer.found ? answer.member : undefined;
  }
}
