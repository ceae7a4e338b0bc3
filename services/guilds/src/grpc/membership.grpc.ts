import type { ServiceImpl } from '@kith/platform';
import type { GuildsService } from '@kith/proto/guilds/v1/guilds';
import type { GuildsDeps } from '../domain/deps.js';

/** GetGuild, GetMember, AddMember, RemoveMember, ListGuildMemberIds, ListMutualGuildIds, GetReadyState. */
export function membershipGrpc(_deps: GuildsDeps): Partial<ServiceImpl<typeof GuildsService>> {
  return {};
}
