import { channelView, guildCreateView, memberView, type ServiceClient } from '@kith/platform';
import type { GuildsService } from '@kith/proto/guilds/v1/guilds';
import type { FoundMembers, GuildsPort, MemberSearchRequest, ReadyGuilds } from '../domain/ports.js';

/** guilds' gRPC contract as READY needs it, rendered by the platform's one rendering of each object. */
export class GrpcGuilds implements GuildsPort {
  constructor(private readonly client: ServiceClient<typeof GuildsService>) {}

  async readyState(userId: string): Promise<ReadyGuilds> {
    const answer = await this.client.getReadyState({ userId });
    return {
      guilds: answer.guilds.flatMap((g) => (g.guild ? [guildCreateView({ ...g, guild: g.guild })] : [])),
      // Each private channel as the user sees it: the other recipients.
      privateChannels: answer.privateChannels.map((c) => channelView(c, userId)),
      guildIds: answer.guildIds,
    };
  }

  async searchMembers(request: MemberSearchRequest): Promise<FoundMembers> {
    const answer = await this.client.searchGuildMembers(request);
    return { members: answer.members.map(memberView), notFound: answer.notFound };
  }
}
