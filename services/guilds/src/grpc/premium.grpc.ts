import { ApiError, type ServiceImpl } from '@kith/platform';
import type { GuildsService } from '@kith/proto/guilds/v1/guilds';
import { isRowId } from '../domain/ids.js';
import type { GuildsDomain } from './guilds.grpc.js';

/** SetPremiumSubscriptionCount: billing reports a guild's boosts. */
export function premiumGrpc({ guilds }: Pick<GuildsDomain, 'guilds'>): Partial<ServiceImpl<typeof GuildsService>> {
  return {
    async setPremiumSubscriptionCount({ guildId, count }) {
      if (!isRowId(guildId)) throw ApiError.of('UNKNOWN_GUILD');
      if (!Number.isInteger(count) || count < 0)
        throw ApiError.form({ count: { code: 'NUMBER_TYPE_MIN', message: 'int value should be greater than or equal to 0.' } });
      const { tier, changed } = await guilds.setPremiumSubscriptionCount(guildId, count);
      return { premiumTier: tier, changed };
    },
  };
}
