import { ApiError } from '@kith/platform';
import { hasAll, parseBits } from './permissions.js';
import type { PermissionCheck, PermissionChecker } from './ports.js';

/**
 * CheckPermissions: the user's permissions in a guild, or in one of its channels. An unknown
 * guild or channel, a channel of another guild and a non-member all answer `member: false` with
 * nothing allowed (callers answer those with their own 404/403). An empty `required` asks only
 * for the permissions; anything else that is not a decimal 64-bit bitfield is a 50035.
 */
export class PermissionService {
  constructor(private readonly checker: PermissionChecker) {}

  async check(
    userId: string,
    guildId: string,
    channelId: string | undefined,
    required: string,
  ): Promise<PermissionCheck & { allowed: boolean }> {
    const requiredBits = required === '' ? 0n : parseBits(required);
    if (requiredBits === undefined) {
      throw ApiError.form({
        required: { code: 'NUMBER_TYPE_COERCE', message: `Value "${required.slice(0, 64)}" is not a permission bitfield.` },
      });
    }
    const { member, permissions } = await this.checker.check(userId, guildId, channelId);
    return { member, permissions, allowed: member && hasAll(permissions, requiredBits) };
  }
}
