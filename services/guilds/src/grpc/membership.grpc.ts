import { ApiError, type ServiceImpl } from '@kith/platform';
import type { GuildsService } from '@kith/proto/guilds/v1/guilds';
import { channelModule } from '../domain/channel.module.js';
import type { GuildsDeps } from '../domain/deps.js';
import { isRowId } from '../domain/input.fields.js';
import { toGuild, toMember } from '../domain/guild.view.js';
import { guildCreateFor, joinGuild, removeUnlessOwner } from '../domain/membership.service.js';
import { userById } from '../domain/user.directory.js';
import { guildsStore } from '../store/guilds.store.js';
import { membersStore } from '../store/members.store.js';
import { rolesStore } from '../store/roles.store.js';

const MAX_PAGE = 1000;

function ids(...values: string[]): void {
  for (const v of values)
    if (!isRowId(v)) throw ApiError.form({ id: { code: 'NUMBER_TYPE_COERCE', message: `Value "${v}" is not snowflake.` } });
}

/** GetGuild, GetMember, AddMember, RemoveMember, ListGuildMemberIds, ListMutualGuildIds, GetReadyState. */
export function membershipGrpc(deps: GuildsDeps): Partial<ServiceImpl<typeof GuildsService>> {
  const { db } = deps;
  return {
    async getGuild({ guildId }) {
      ids(guildId);
      const guild = await guildsStore.guild(db, guildId);
      if (!guild) return { found: false };
      return { found: true, guild: toGuild(guild, await rolesStore.roles(db, guildId)) };
    },

    async getMember({ guildId, userId }) {
      ids(guildId, userId);
      const member = await membersStore.member(db, guildId, userId);
      return member ? { found: true, member: toMember(member) } : { found: false };
    },

    async addMember({ guildId, userId, roleIds, temporary, guest }) {
      ids(guildId, userId, ...roleIds);
      const result = await joinGuild(deps, guildId, userId, { roleIds, temporary, guest });
      if (result.error !== 0) return { errorCode: result.error };
      return {
        errorCode: 0,
        alreadyMember: result.alreadyMember,
        member: toMember(result.member),
        guild: result.guild,
      };
    },

    async removeMember({ guildId, userId }) {
      ids(guildId, userId);
      return { removed: (await removeUnlessOwner(deps, guildId, userId)) === 'removed' };
    },

    async listGuildMemberIds({ guildId, after, limit }) {
      ids(guildId);
      const page = Math.min(Math.max(limit || MAX_PAGE, 1), MAX_PAGE);
      return { userIds: await membersStore.memberIds(db, guildId, after && isRowId(after) ? after : null, page) };
    },

    async listMutualGuildIds({ userId, otherUserId }) {
      ids(userId, otherUserId);
      const guilds = await guildsStore.mutualGuilds(db, userId, otherUserId);
      return { guildIds: guilds.map((g) => g.id), guilds };
    },

    /** READY: every guild as GUILD_CREATE carries it, and the private channels GET /users/@me/channels lists. */
    async getReadyState({ userId }) {
      ids(userId);
      const [guildIds, privateChannels, self] = await Promise.all([
        guildsStore.guildIdsOf(db, userId),
        // The very list GET /users/@me/channels answers: closed DMs left out.
        channelModule(deps).dms.listOpen(userId),
        userById(deps.auth, userId),
      ]);
      // Concurrent renders: the pool bounds how many run at once.
      const rendered = await Promise.all(
        guildIds.map(async (guildId) => {
          const [guild, member] = await Promise.all([guildsStore.guild(db, guildId), membersStore.member(db, guildId, userId)]);
          // Left or deleted between the reads: not in READY.
          return guild && member ? guildCreateFor(db, guild, member, self) : undefined;
        }),
      );
      const guilds = rendered.filter((g) => g !== undefined);
      return { guilds, privateChannels, guildIds: guilds.map((g) => g.guild.id) };
    },
  };
}
