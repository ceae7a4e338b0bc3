import { ApiError, type ServiceImpl } from '@kith/platform';
import type { GuildsService } from '@kith/proto/guilds/v1/guilds';
import { toEmoji, toRole } from '../domain/guild.view.js';
import { requireRowIds as ids } from '../domain/ids.js';
import { ALL_PERMISSIONS } from '../domain/permissions.js';
import type { GuildsDomain } from './guilds.grpc.js';

/** SyncManagedEmojis, CreateManagedRole, SetManagedRolePermissions, DeleteManagedRole, SetManagedRole (integrations' subscriber roles). */
export function managedRolesGrpc({
  managedRoles,
  managedEmojis,
}: Pick<GuildsDomain, 'managedRoles' | 'managedEmojis'>): Partial<ServiceImpl<typeof GuildsService>> {
  return {
    async syncManagedEmojis({ guildId, integrationId, emojis }) {
      ids(guildId, integrationId, ...emojis.flatMap((e) => e.roleIds));
      const result = await managedEmojis.sync(
        guildId,
        integrationId,
        emojis.map((e) => ({
          sourceId: e.sourceId.slice(0, 100),
          name: e.name,
          animated: e.animated,
          roleIds: e.roleIds,
          imageUrl: e.imageUrl.slice(0, 2048),
        })),
      );
      return result.error === 0
        ? { errorCode: 0, emojis: result.emojis.map(toEmoji), changed: result.changed }
        : { errorCode: result.error, emojis: [], changed: false };
    },
    async createManagedRole({ guildId, name, permissions, botId, integrationId }) {
      ids(guildId, ...[botId, integrationId].filter(Boolean));
      if (permissions !== '' && !/^\d{1,20}$/.test(permissions))
        throw ApiError.form({ permissions: { code: 'NUMBER_TYPE_COERCE', message: `Value "${permissions.slice(0, 24)}" is not int.` } });
      const clean = name.trim().slice(0, 100) || 'new role';
      const result = await managedRoles.create(guildId, clean, {
        permissions: BigInt(permissions || '0') & ALL_PERMISSIONS,
        botId: botId || null,
        integrationId: integrationId || null,
      });
      return result.error === 0 ? { errorCode: 0, role: toRole(result.role) } : { errorCode: result.error };
    },
    async setManagedRolePermissions({ guildId, roleId, permissions }) {
      ids(guildId, roleId);
      if (!/^\d{1,20}$/.test(permissions))
        throw ApiError.form({ permissions: { code: 'NUMBER_TYPE_COERCE', message: `Value "${permissions.slice(0, 24)}" is not int.` } });
      return managedRoles.setPermissions(guildId, roleId, BigInt(permissions) & ALL_PERMISSIONS);
    },
    async deleteManagedRole({ guildId, roleId }) {
      ids(guildId, roleId);
      return { deleted: await managedRoles.delete(guildId, roleId) };
    },
    async setManagedRole({ guildId, userId, roleId, present }) {
      ids(guildId, userId, roleId);
      return managedRoles.set(guildId, userId, roleId, present);
    },
  };
}
