import type { ServiceClient } from '@kith/platform';
import type { AuthService } from '@kith/proto/auth/v1/auth';
import type { GuildsService } from '@kith/proto/guilds/v1/guilds';
import type { PerkTargets } from '../domain/perks.service.js';

/** Perks pushed over gRPC: premium type to auth, boost counts to guilds. */
export class GrpcPerkTargets implements PerkTargets {
  constructor(
    private readonly auth: ServiceClient<typeof AuthService>,
    private readonly guilds: ServiceClient<typeof GuildsService>,
  ) {}

  async setPremiumType(userId: string, premiumType: number): Promise<void> {
    await this.auth.setPremiumType({ userId, premiumType });
  }

  async setGuildBoosts(guildId: string, count: number): Promise<void> {
    await this.guilds.setPremiumSubscriptionCount({ guildId, count });
  }
}
