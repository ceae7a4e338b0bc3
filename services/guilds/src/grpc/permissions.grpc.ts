import type { ServiceImpl } from '@kith/platform';
import type { GuildsService } from '@kith/proto/guilds/v1/guilds';
import type { GuildsDeps } from '../domain/deps.js';

/** CheckPermissions. */
export function permissionsGrpc(_deps: GuildsDeps): Partial<ServiceImpl<typeof GuildsService>> {
  return {};
}
