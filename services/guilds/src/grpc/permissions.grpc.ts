import type { ServiceImpl } from '@kith/platform';
import type { GuildsService } from '@kith/proto/guilds/v1/guilds';
import type { GuildsDomain } from './guilds.grpc.js';

/** CheckPermissions (domain/permission.service.ts decides). */
export function permissionsGrpc({ permissions }: Pick<GuildsDomain, 'permissions'>): Partial<ServiceImpl<typeof GuildsService>> {
  return {
    async checkPermissions({ userId, guildId, channelId, required }) {
      const check = await permissions.check(userId, guildId, channelId === '' ? undefined : channelId, required);
      return { member: check.member, allowed: check.allowed, permissions: check.permissions.toString() };
    },
  };
}
