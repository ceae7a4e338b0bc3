import { ApiError, type ContractUser, type ServiceClient } from '@kith/platform';
import type { AuthService } from '@kith/proto/auth/v1/auth';
import type { GuildsService } from '@kith/proto/guilds/v1/guilds';
import type { SocialService } from '@kith/proto/social/v1/social';
import type { WebhooksService } from '@kith/proto/webhooks/v1/webhooks';
import type {
  GuildSummary,
  GuildsPort,
  ManagedEmoji,
  ManagedRoleOwner,
  ApplicationWebhookRequest,
  ApplicationWebhookView,
  PermissionCheck,
  PrivateChannel,
  SocialPort,
  UsersPort,
  WebhooksPort,
} from '../domain/integrations/ports.js';

/** Users from auth over gRPC. */
export class AuthUsers implements UsersPort {
  constructor(private readonly auth: ServiceClient<typeof AuthService>) {}

  async createBot(name: string): Promise<ContractUser> {
    const { user } = await this.auth.createBotUser({ username: name });
    if (!user) throw new Error('auth answered CreateBotUser without a user');
    return user;
  }

  async resetBotToken(botUserId: string): Promise<string> {
    return (await this.auth.resetBotToken({ userId: botUserId })).token;
  }

  async requireElevation(userId: string, sessionId: string | null, elevationToken: string): Promise<void> {
    await this.auth.checkMfaElevation({ userId, sessionId: sessionId ?? '', elevationToken });
  }

  async users(ids: string[]): Promise<Map<string, ContractUser>> {
    if (ids.length === 0) return new Map();
    const { users } = await this.auth.getUsers({ userIds: ids });
    return new Map(users.map((u) => [u.id, u]));
  }
}

/** Guilds over gRPC: permissions, membership and channels. */
export class GrpcGuilds implements GuildsPort {
  constructor(private readonly guilds: ServiceClient<typeof GuildsService>) {}

  async permissions(userId: string, guildId: string, required: bigint): Promise<PermissionCheck> {
    const { member, allowed, permissions } = await this.guilds.checkPermissions({
      userId,
      guildId,
      channelId: '',
      required: required.toString(),
    });
    return { member, allowed, permissions: BigInt(permissions || '0') };
  }

  async addMember(guildId: string, userId: string, roleIds: string[] = []): Promise<number> {
    return (await this.guilds.addMember({ guildId, userId, roleIds })).errorCode;
  }

  async createManagedRole(guildId: string, name: string, owner: ManagedRoleOwner = {}): Promise<string> {
    const { errorCode, role } = await this.guilds.createManagedRole({
      guildId,
      name,
      permissions: (owner.permissions ?? 0n).toString(),
      botId: owner.botId ?? '',
      integrationId: owner.integrationId ?? '',
    });
    if (errorCode === 10004) throw ApiError.of('UNKNOWN_GUILD');
    if (errorCode !== 0 || !role) throw new ApiError(400, { code: errorCode, message: 'Maximum number of guild roles reached (250)' });
    return role.id;
  }

  async setManagedRolePermissions(guildId: string, roleId: string, permissions: bigint): Promise<boolean> {
    return (await this.guilds.setManagedRolePermissions({ guildId, roleId, permissions: permissions.toString() })).found;
  }

  async syncManagedEmojis(guildId: string, integrationId: string, emojis: ManagedEmoji[]): Promise<number> {
    return (await this.guilds.syncManagedEmojis({ guildId, integrationId, emojis })).errorCode;
  }

  async deleteManagedRole(guildId: string, roleId: string): Promise<boolean> {
    return (await this.guilds.deleteManagedRole({ guildId, roleId })).deleted;
  }

  async setManagedRole(guildId: string, userId: string, roleId: string, present: boolean) {
    const { member, changed } = await this.guilds.setManagedRole({ guildId, userId, roleId, present });
    return { member, changed };
  }

  async removeMember(guildId: string, userId: string): Promise<boolean> {
    return (await this.guilds.removeMember({ guildId, userId })).removed;
  }

  async channel(channelId: string): Promise<PrivateChannel | undefined> {
    const { found, channel } = await this.guilds.getChannel({ channelId });
    if (!found || !channel) return undefined;
    return { id: channel.id, type: channel.type, guildId: channel.guildId, recipientIds: channel.recipientIds };
  }

  async summary(guildId: string): Promise<GuildSummary | undefined> {
    const { guild } = await this.guilds.getGuild({ guildId }).catch((err: unknown) => {
      if (err instanceof ApiError && err.status === 404) return { guild: undefined };
      throw err;
    });
    return guild ? { id: guild.id, name: guild.name, icon: guild.icon || null, mfaLevel: guild.mfaLevel } : undefined;
  }

  async guildIdsOf(userId: string): Promise<string[]> {
    // The guilds a user shares with themself are every guild they are in.
    return (await this.guilds.listMutualGuildIds({ userId, otherUserId: userId })).guildIds;
  }
}

export class GrpcSocial implements SocialPort {
  constructor(private readonly social: ServiceClient<typeof SocialService>) {}

  async recordAuthorization(userId: string, applicationId: string): Promise<void> {
    await this.social.recordApplicationAuthorization({ userId, applicationId });
  }
}

/**
 * The webhooks service's cleanup over gRPC: an integration's webhooks are its application's webhooks
 * in the guild (a streaming integration, with no application, has none).
 */
export class GrpcWebhooks implements WebhooksPort {
  constructor(private readonly webhooks: ServiceClient<typeof WebhooksService>) {}

  async deleteIntegrationWebhooks(guildId: string, _integrationId: string, applicationId: string | null): Promise<void> {
    if (!applicationId) return;
    await this.webhooks.deleteApplicationWebhooks({ guildId, applicationId });
  }

  async createApplicationWebhook(r: ApplicationWebhookRequest): Promise<{ errorCode: number; webhook?: ApplicationWebhookView }> {
    const { errorCode, webhook: w } = await this.webhooks.createApplicationWebhook({
      userId: r.userId,
      channelId: r.channelId,
      guildId: r.guildId ?? '',
      applicationId: r.applicationId,
      name: r.name,
      avatar: r.avatar ?? '',
      applicationUserId: r.applicationUserId ?? '',
    });
    if (errorCode !== 0 || !w) return { errorCode: errorCode || 10003 };
    return {
      errorCode: 0,
      webhook: {
        id: w.id,
        type: w.type,
        guild_id: w.guildId,
        channel_id: w.channelId,
        name: w.name,
        avatar: w.avatar || null,
        application_id: w.applicationId,
        token: w.token,
        url: w.url,
      },
    };
  }
}
