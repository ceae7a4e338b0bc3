import { ApiError, type Audience, type ServiceClient } from '@kith/platform';
import type { Channel, GuildsService } from '@kith/proto/guilds/v1/guilds';
import type { GuildDirectory, GuildSummary } from '../domain/ports.js';
import { Permission, type ChannelInfo } from '../domain/webhook.types.js';

const VIEWER_PAGE = 1000;

const toInfo = (c: Channel): ChannelInfo => ({
  id: c.id,
  type: c.type,
  guildId: c.guildId,
  parentId: c.parentId,
  name: c.name,
  archived: c.threadMetadata?.archived ?? false,
  locked: c.threadMetadata?.locked ?? false,
  tagIds: c.availableTags.map((t) => t.id),
});

/** Channels, permissions and audiences from the guilds service over gRPC. */
export class GrpcGuildDirectory implements GuildDirectory {
  constructor(private readonly guilds: ServiceClient<typeof GuildsService>) {}

  async channel(channelId: string): Promise<ChannelInfo | undefined> {
    const { found, channel } = await this.guilds.getChannel({ channelId });
    return found && channel ? toInfo(channel) : undefined;
  }

  async permissions(userId: string, guildId: string, channelId: string): Promise<bigint | undefined> {
    const answer = await this.guilds.checkPermissions({ userId, guildId, channelId, required: String(Permission.MANAGE_WEBHOOKS) });
    return answer.member ? BigInt(answer.permissions || '0') : undefined;
  }

  async audience(channelId: string, guildId: string): Promise<Audience> {
    const first = await this.guilds.listChannelViewerIds({ channelId, after: '', limit: VIEWER_PAGE });
    // Every member sees it: no need for the list (a large guild's is long), realtime fans out.
    if (first.wholeGuild) return { guilds: [guildId] };
    return { users: await this.viewerIds(channelId, first.userIds) };
  }

  async viewerIds(channelId: string, firstPage?: string[]): Promise<string[]> {
    if (firstPage && firstPage.length < VIEWER_PAGE) return firstPage;
    const ids: string[] = [...(firstPage ?? [])];
    let after = firstPage?.at(-1) ?? '';
    for (;;) {
      const { userIds } = await this.guilds.listChannelViewerIds({ channelId, after, limit: VIEWER_PAGE });
      ids.push(...userIds);
      if (userIds.length < VIEWER_PAGE) return ids;
      after = userIds[userIds.length - 1]!;
    }
  }

  async guild(guildId: string): Promise<GuildSummary | undefined> {
    const { found, guild } = await this.guilds.getGuild({ guildId });
    return found && guild ? { id: guild.id, name: guild.name, icon: guild.icon || null } : undefined;
  }

  async roleIds(guildId: string): Promise<Set<string>> {
    const { found, guild } = await this.guilds.getGuild({ guildId });
    return new Set(found && guild ? guild.roles.map((r) => r.id) : []);
  }

  async unarchiveThread(threadId: string): Promise<void> {
    refused((await this.guilds.unarchiveThread({ threadId })).errorCode);
  }

  async createForumThread(t: { channelId: string; threadId: string; name: string; appliedTags: string[]; ownerId: string }): Promise<void> {
    const answer = await this.guilds.startWebhookThread({
      parentId: t.channelId,
      threadId: t.threadId,
      name: t.name,
      appliedTags: t.appliedTags,
      ownerId: t.ownerId,
    });
    refused(answer.errorCode);
  }
}

/** Guilds' refusal codes as the platform's errors. */
function refused(code: number): void {
  if (code === 0) return;
  if (code === 50083) throw ApiError.of('THREAD_ARCHIVED');
  if (code === 50024) throw ApiError.of('INVALID_CHANNEL_TYPE');
  throw ApiError.of('UNKNOWN_CHANNEL');
}
