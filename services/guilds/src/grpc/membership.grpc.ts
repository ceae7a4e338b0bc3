import { ApiError, isSnowflake, type ServiceImpl } from '@kith/platform';
import type { GuildsService } from '@kith/proto/guilds/v1/guilds';
import { renderChannel } from '../domain/channel.view.js';
import type { GuildsDeps } from '../domain/deps.js';
import { guildCounts, renderGuild } from '../domain/guild.view.js';
import { joinGuild, removeMember, renderGuildFor } from '../domain/membership.service.js';
import { unknownUser, usersById } from '../domain/user.directory.js';
import { guildsStore } from '../store/guilds.store.js';
import { membersStore, type MemberRow } from '../store/members.store.js';
import { rolesStore } from '../store/roles.store.js';

const MAX_PAGE = 1000;

function ids(...values: string[]): void {
  for (const v of values)
    if (!isSnowflake(v)) throw ApiError.form({ id: { code: 'NUMBER_TYPE_COERCE', message: `Value "${v}" is not snowflake.` } });
}

const toMember = (m: MemberRow) => ({
  userId: m.user_id,
  nick: m.nick ?? '',
  roleIds: m.role_ids,
  joinedAt: m.joined_at.toISOString(),
  pending: m.pending,
  temporary: m.temporary,
  flags: m.flags,
});

/** GetGuild, GetMember, AddMember, RemoveMember, ListGuildMemberIds, ListMutualGuildIds, GetReadyState. */
export function membershipGrpc(deps: GuildsDeps): Partial<ServiceImpl<typeof GuildsService>> {
  const { db } = deps;
  return {
    async getGuild({ guildId }) {
      ids(guildId);
      const guild = await guildsStore.guild(db, guildId);
      if (!guild) return { found: false };
      const counts = guildCounts(guild);
      return {
        found: true,
        guild: {
          id: guild.id,
          name: guild.name,
          icon: guild.icon ?? '',
          ownerId: guild.owner_id,
          approximateMemberCount: counts.approximate_member_count,
          approximatePresenceCount: counts.approximate_presence_count,
          features: guild.features,
          guildJson: JSON.stringify(renderGuild(guild, await rolesStore.roles(db, guildId))),
        },
      };
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
        guildJson: JSON.stringify(result.guildJson),
      };
    },

    async removeMember({ guildId, userId }) {
      ids(guildId, userId);
      const user = (await usersById(deps.auth, [userId])).get(userId);
      const removed = await db.transaction().execute(async (trx) => {
        const guild = await guildsStore.guild(trx, guildId);
        // The owner stays: a guild always has its owner among its members.
        if (!guild || guild.owner_id === userId) return false;
        return removeMember(deps, trx, guildId, userId, user);
      });
      return { removed };
    },

    async listGuildMemberIds({ guildId, after, limit }) {
      ids(guildId);
      const page = Math.min(Math.max(limit || MAX_PAGE, 1), MAX_PAGE);
      return { userIds: await membersStore.memberIds(db, guildId, after && isSnowflake(after) ? after : null, page) };
    },

    async listMutualGuildIds({ userId, otherUserId }) {
      ids(userId, otherUserId);
      return { guildIds: await guildsStore.mutualGuildIds(db, userId, otherUserId) };
    },

    /** READY: every guild as GUILD_CREATE renders it, and the private channels as GET /users/@me/channels does. */
    async getReadyState({ userId }) {
      ids(userId);
      const [guildIds, privateChannels] = await Promise.all([
        guildsStore.guildIdsOf(db, userId),
        guildsStore.privateChannelsOf(db, userId),
      ]);
      const users = await usersById(deps.auth, [userId, ...privateChannels.flatMap((c) => c.recipientIds)]);
      const self = users.get(userId) ?? unknownUser(userId);
      // Concurrent renders: the pool bounds how many run at once.
      const rendered = await Promise.all(
        guildIds.map(async (guildId) => {
          const [guild, member] = await Promise.all([guildsStore.guild(db, guildId), membersStore.member(db, guildId, userId)]);
          // Left or deleted between the reads: not in READY.
          return guild && member ? renderGuildFor(db, guild, member, self) : undefined;
        }),
      );
      const guilds = rendered.filter((g) => g !== undefined);
      const channels = privateChannels.map(({ channel, recipientIds }) =>
        renderChannel(
          channel,
          [],
          recipientIds.filter((id) => id !== userId).map((id) => users.get(id) ?? unknownUser(id)),
        ),
      );
      return {
        guildsJson: JSON.stringify(guilds),
        privateChannelsJson: JSON.stringify(channels),
        guildIds: guilds.map((g) => g.id as string),
      };
    },
  };
}
