import type { Logger, ServiceClient } from '@kith/platform';
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
      return guilds.map((g) => ({ id: g.id, memberCount: g.memberCount }));
    } catch (err) {
      this.logger.warn({ err }, 'guilds unavailable: treating the pair as sharing no guild');
      return [];
    }
  }
}
