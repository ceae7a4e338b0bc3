import type { ServiceImpl } from '@kith/platform';
import type { GuildsService } from '@kith/proto/guilds/v1/guilds';
import { toMember } from '../domain/guild.view.js';
import { isRowId, requireRowIds as ids } from '../domain/ids.js';
import type { MemberSearch } from '../domain/member-search.service.js';
import type { GuildsDomain } from './guilds.grpc.js';

const MAX_PAGE = 1000;

/** GetGuild, GetMember, AddMember, RemoveMember, ListGuildMemberIds, SearchGuildMembers, ListMutualGuildIds, GetReadyState. */
export function membershipGrpc({
  lookups,
  membership,
  memberSearch,
}: Pick<GuildsDomain, 'lookups' | 'membership' | 'memberSearch'>): Partial<ServiceImpl<typeof GuildsService>> {
  return {
    async getGuild({ guildId, withEmojis }) {
      ids(guildId);
      const guild = await lookups.guild(guildId, withEmojis);
      return guild ? { found: true, guild } : { found: false };
    },

    async getMember({ guildId, userId }) {
      ids(guildId, userId);
      const member = await lookups.member(guildId, userId);
      return member ? { found: true, member } : { found: false };
    },

    async addMember({ guildId, userId, roleIds, temporary, guest, bypassVerification, sessionId, channelId, omitGuild }) {
      ids(guildId, userId, ...roleIds);
      if (guest && channelId) ids(channelId);
      const result = await membership.join(guildId, userId, { roleIds, temporary, guest, bypassVerification, sessionId, channelId });
      if (result.error !== 0) return { errorCode: result.error };
      const member = toMember(result.member);
      if (omitGuild) return { errorCode: 0, alreadyMember: result.alreadyMember, member };
      return { errorCode: 0, alreadyMember: result.alreadyMember, member, guild: result.guild };
    },

    async removeMember({ guildId, userId }) {
      ids(guildId, userId);
      return { removed: (await membership.removeUnlessOwner(guildId, userId)) === 'removed' };
    },

    async listGuildMemberIds({ guildId, after, limit }) {
      ids(guildId);
      const page = Math.min(Math.max(limit || MAX_PAGE, 1), MAX_PAGE);
      return { userIds: await lookups.memberIds(guildId, after && isRowId(after) ? after : null, page) };
    },

    async searchGuildMembers({ guildId, requesterId, query, userIds, limit, after, privileged }) {
      ids(guildId, requesterId, ...userIds);
      const search: MemberSearch =
        userIds.length > 0
          ? { kind: 'ids', userIds }
          : query
            ? { kind: 'query', query, limit }
            : { kind: 'all', after: after && isRowId(after) ? after : null, privileged };
      return memberSearch.search(guildId, requesterId, search);
    },

    async listMutualGuildIds({ userId, otherUserId }) {
      ids(userId, otherUserId);
      const guilds = await lookups.mutualGuilds(userId, otherUserId);
      return {
        guildIds: guilds.map((g) => g.id),
        guilds: guilds.map((g) => ({ id: g.id, memberCount: g.memberCount, nick: g.nick ?? undefined })),
      };
    },

    async getReadyState({ userId }) {
      ids(userId);
      const { guilds, privateChannels } = await lookups.readyState(userId);
      return { guilds, privateChannels, guildIds: guilds.map((g) => g.guild.id) };
    },
  };
}
