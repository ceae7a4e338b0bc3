import type { ServiceClient } from '@kith/platform';
import type { GuildsService } from '@kith/proto/guilds/v1/guilds';
import type { GuildsPort, ReadyGuilds } from '../domain/ports.js';

/** guilds' gRPC contract as READY needs it. */
export class GrpcGuilds implements GuildsPort {
  constructor(private readonly client: ServiceClient<typeof GuildsService>) {}

  async readyState(userId: string): Promise<ReadyGuilds> {
    const answer = await this.client.getReadyState({ userId });
    return {
      guilds: JSON.parse(answer.guildsJson || '[]') as unknown[],
      privateChannels: JSON.parse(answer.privateChannelsJson || '[]') as unknown[],
      guildIds: answer.guildIds,
    };
  }
}
