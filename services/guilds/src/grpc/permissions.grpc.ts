import { ApiError, type ServiceImpl } from '@kith/platform';
import type { GuildsService } from '@kith/proto/guilds/v1/guilds';
import type { GuildsDeps } from '../domain/deps.js';
import { hasAll, parseBits } from '../domain/permissions.js';

/**
 * CheckPermissions: the user's permissions in a guild, or in one of its channels. An unknown
 * guild or channel, a channel of another guild and a non-member all answer `member: false` with
 * nothing allowed (callers answer those with their own 404/403). An empty `required` asks only
 * for the permissions; anything else that is not a decimal 64-bit bitfield is INVALID_ARGUMENT.
 */
export function permissionsGrpc(deps: Pick<GuildsDeps, 'access'>): Partial<ServiceImpl<typeof GuildsService>> {
  return {
    async checkPermissions({ userId, guildId, channelId, required }) {
      const requiredBits = required === '' ? 0n : parseBits(required);
      if (requiredBits === undefined) {
        throw ApiError.form({
          required: { code: 'NUMBER_TYPE_COERCE', message: `Value "${required.slice(0, 64)}" is not a permission bitfield.` },
        });
      }
      const { member, permissions } = await deps.access.check(userId, guildId, channelId === '' ? undefined : channelId);
      return { member, allowed: member && hasAll(permissions, requiredBits), permissions: permissions.toString() };
    },
  };
}
