import type { ChannelData, GuildData, MemberData, ServiceClient } from '@kith/platform';
import type { GuildsService } from '@kith/proto/guilds/v1/guilds';
import type { AddMemberAnswer, AddRecipientAnswer, GuildDirectory, PermissionAnswer } from '../domain/ports.js';

const PAGE = 1000;

/** The guilds service over gRPC. Its refusals arrive as codes; its failures as errors (503/504 at our edge). */
export class GrpcGuildDirectory implements GuildDirectory {
  constructor(private readonly guilds: ServiceClient<typeof GuildsService>) {}

  async channel(channelId: string): Promise<ChannelData | undefined> {
    const answer = await this.guilds.getChannel({ channelId });
    return answer.found ? answer.channel : undefined;
  }

  async guild(guildId: string): Promise<GuildData | undefined> {
    const answer = await this.guilds.getGuild({ guildId });
    return answer.found ? answer.guild : undefined;
  }

  async member(guildId: string, userId: string): Promise<MemberData | undefined> {
    const answer = await this.guilds.getMember({ guildId, userId });
    return answer.found ? answer.member : undefined;
  }

  async permissions(userId: string, guildId: string, channelId?: string): Promise<PermissionAnswer> {
    const answer = await this.guilds.checkPermissions({ userId, guildId, channelId: channelId ?? '', required: '' });
    return { member: answer.member, permissions: BigInt(answer.permissions || '0') };
  }

  async channelUsersWith(channelId: string, required: bigint): Promise<string[]> {
    const ids: string[] = [];
    let after = '';
    for (;;) {
      const { userIds } = await this.guilds.listChannelViewerIds({ channelId, after, limit: PAGE, required: required.toString() });
      ids.push(...userIds);
      if (userIds.length < PAGE) return ids;
      after = userIds[userIds.length - 1]!;
    }
  }

  async addMember(
    guildId: string,
    userId: string,
    options: { roleIds: string[]; temporary: boolean; guest: boolean; channelId: string; bypassVerification: boolean; sessionId: string },
  ): Promise<AddMemberAnswer> {
    // The answer's GUILD_CREATE is of no use here (the member gets it through the events): not asked for.
    const answer = await this.guilds.addMember({ guildId, userId, ...options, omitGuild: true });
    if (answer.errorCode !== 0) return { error: answer.errorCode };
    return { error: 0, alreadyMember: answer.alreadyMember, member: answer.member };
  }

  async addRecipient(channelId: string, userId: string): Promise<AddRecipientAnswer> {
    const answer = await this.guilds.addRecipient({ channelId, userId });
    if (answer.errorCode !== 0) return { error: answer.errorCode };
    return { error: 0, alreadyRecipient: answer.alreadyRecipient, channel: answer.channel };
  }
}
